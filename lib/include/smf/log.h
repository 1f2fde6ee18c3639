/*
 * log.h: messages to stderr, prefixed with the program's name.
 *
 * Daemons run in the foreground and log to stderr (the supervisor or the test harness keeps
 * it); the CLI prints its errors the same way, as "svccfg: ...", which scripts grep.
 * log_*_errno() return the negative error they were given, so "return log_error_errno(r, ...)"
 * reports and propagates in one statement.
 */
#ifndef SMF_LOG_H
#define SMF_LOG_H

#include "macro.h"

enum { LOG_LEVEL_ERROR = 0, LOG_LEVEL_WARNING = 1, LOG_LEVEL_INFO = 2, LOG_LEVEL_DEBUG = 3 };

/* Sets the prefix (normally basename(argv[0])). */
void log_set_program(const char *name);
const char *log_program(void);
/* Messages above this level are dropped; SMF_LOG_LEVEL=debug|info|warning|error sets it too. */
void log_set_level(int level);
int log_get_level(void);

void log_msg(int level, const char *fmt, ...) _printf_(2, 3);
/* Logs "fmt: <message>" (smf_strerror(err): errno or scf_error_t) and returns err (negative). */
int log_msg_errno(int level, int err, const char *fmt, ...) _printf_(3, 4);

#define log_debug(...) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_LEVEL_WARNING, __VA_ARGS__)
#define log_error(...) log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_error_errno(err, ...) log_msg_errno(LOG_LEVEL_ERROR, (err), __VA_ARGS__)
#define log_warning_errno(err, ...) log_msg_errno(LOG_LEVEL_WARNING, (err), __VA_ARGS__)

#endif

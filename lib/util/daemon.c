/* daemon.c: the daemons' command line (see daemon.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "config.h"
#include "daemon.h"
#include "log.h"
#include "macro.h"

static void help(const daemon_args_spec_t *spec)
{
	printf("Usage: %s [--root DIR]%s%s%s%s%s%s\n\n%s\n\n", spec->program,
	        spec->flag_name ? " [--" : "", strempty(spec->flag_name),
	        spec->flag_name ? "]" : "", spec->flag2_name ? " [--" : "",
	        strempty(spec->flag2_name), spec->flag2_name ? "]" : "", spec->description);
	printf("  -r, --root DIR   the root directory\n");
	if (spec->flag_name)
		printf("  -%c, --%-10s %s\n", spec->flag_short, spec->flag_name, spec->flag_help);
	if (spec->flag2_name)
		printf("  -%c, --%-10s %s\n", spec->flag2_short, spec->flag2_name,
		        spec->flag2_help);
	printf("  -h, --help       show this help\n"
	       "      --version    show the version\n");
}

int daemon_parse_args(const daemon_args_spec_t *spec, int argc, char *argv[], daemon_args_t *ret)
{
	enum { ARG_VERSION = 0x100 };
	struct option options[6] = {
	        {"root", required_argument, NULL, 'r'},
	        {"help", no_argument, NULL, 'h'},
	        {"version", no_argument, NULL, ARG_VERSION},
	};
	char shorts[8] = "r:h";
	size_t k = 3;
	int c;

	*ret = (daemon_args_t){};
	if (spec->flag_name) {
		options[k] = (struct option){spec->flag_name, no_argument, NULL, spec->flag_short};
		shorts[k++] = spec->flag_short;
	}
	if (spec->flag2_name) {
		options[k] =
		        (struct option){spec->flag2_name, no_argument, NULL, spec->flag2_short};
		shorts[k++] = spec->flag2_short;
	}
	while ((c = getopt_long(argc, argv, shorts, options, NULL)) >= 0) {
		if (c == 'r')
			ret->root = optarg;
		else if (c == 'h') {
			help(spec);
			return 0;
		} else if (c == ARG_VERSION) {
			printf("%s (minismf) %s\n", spec->program, PACKAGE_VERSION);
			return 0;
		} else if (spec->flag_name && c == spec->flag_short)
			ret->flag = true;
		else if (spec->flag2_name && c == spec->flag2_short)
			ret->flag2 = true;
		else
			return -EINVAL;
	}
	if (optind < argc) {
		log_error("unexpected argument \"%s\"", argv[optind]);
		return -EINVAL;
	}
	return 1;
}

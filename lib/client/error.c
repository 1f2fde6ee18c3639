/* stub: lib/client/error.c */

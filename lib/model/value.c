/* stub: lib/model/value.c */

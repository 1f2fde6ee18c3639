/* stub: lib/model/name.c */

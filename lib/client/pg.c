/* stub: lib/client/pg.c */

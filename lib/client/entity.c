/* stub: lib/client/entity.c */

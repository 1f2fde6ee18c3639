/* stub: lib/client/handle.c */

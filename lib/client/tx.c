/* stub: lib/client/tx.c */

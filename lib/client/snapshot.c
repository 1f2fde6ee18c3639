/* stub: lib/client/snapshot.c */

/* stub: lib/client/notify.c */

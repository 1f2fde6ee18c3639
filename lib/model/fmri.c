/* stub: lib/model/fmri.c */

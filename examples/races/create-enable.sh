#!/bin/sh
# create-enable.sh: runs create-enable, the libscf program that creates a service and an
# instance, enables it and waits for it to be online (create-enable.c).  The program is built
# by meson next to the copy of this script in the build tree (build/examples/races/); run that
# copy, or name the program in CREATE_ENABLE.
set -e
exec "${CREATE_ENABLE:-$(dirname "$0")/create-enable}" site/prog

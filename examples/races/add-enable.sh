#!/bin/sh
# add-enable.sh: a service built by hand with svccfg instead of a manifest: the service, its
# start and stop methods, then an instance, then enable it and wait for it to come online.
# The instance exists once "add default" returns; its "restarter" property group does not
# until svc.startd has seen it, so "svcadm enable -s" may find it "misconfigured".
set -e

svccfg add site/app
svccfg -s site/app addpg start method
svccfg -s site/app setprop start/exec = astring: ":true"
svccfg -s site/app setprop start/timeout_seconds = count: 60
svccfg -s site/app addpg stop method
svccfg -s site/app setprop stop/exec = astring: ":true"
svccfg -s site/app setprop stop/timeout_seconds = count: 60
svccfg -s site/app addpg startd framework
svccfg -s site/app setprop startd/duration = astring: transient
svccfg -s site/app add default
svcadm enable -s site/app:default

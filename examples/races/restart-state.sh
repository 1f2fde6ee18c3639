#!/bin/sh
# restart-state.sh: restart a running daemon, then check that it came back as a new process.
# "svcadm restart" only asks svc.startd to restart the instance and returns at once; the state
# a script reads right after it is the state from before the restart (the old process, still
# "online").  Reading it as the outcome is a reader-before-async-writer race in the script:
# no fix in the tools closes it (illumos' svcadm restart has no -s either); the script must
# wait for the new process instead (see README).
set -e

manifest=$(mktemp)
cat >"$manifest" <<'XML'
<?xml version="1.0"?>
<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">
<service_bundle type="manifest" name="site-daemon">
  <service name="site/daemon" type="service" version="1">
    <create_default_instance enabled="false"/>
    <single_instance/>
    <exec_method type="method" name="start" exec="sleep 600 &amp;" timeout_seconds="60"/>
    <exec_method type="method" name="stop" exec=":kill" timeout_seconds="60"/>
  </service>
</service_bundle>
XML

svccfg import "$manifest"
svcadm enable -s site/daemon
old=$(svcs -H -o ctid site/daemon)
svcadm restart site/daemon
state=$(svcs -H -o state site/daemon)
new=$(svcs -H -o ctid site/daemon)
if [ "$state" != online ] || [ "$new" = "$old" ]; then
	echo "restart-state: after svcadm restart: state $state, process group $old -> $new" >&2
	exit 1
fi

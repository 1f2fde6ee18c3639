#!/bin/sh
# disable-delete.sh: remove a service: stop it, wait until it is disabled, delete it.  "svccfg
# delete" refuses an instance that may still run, so the script relies on "svcadm disable -s"
# having waited long enough; and svc.startd must not write to an instance that is gone.
set -e

manifest=$(mktemp)
cat >"$manifest" <<'XML'
<?xml version="1.0"?>
<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">
<service_bundle type="manifest" name="site-old">
  <service name="site/old" type="service" version="1">
    <create_default_instance enabled="true"/>
    <single_instance/>
    <exec_method type="method" name="start" exec="sleep 600 &amp;" timeout_seconds="60"/>
    <exec_method type="method" name="stop" exec=":kill" timeout_seconds="60"/>
  </service>
</service_bundle>
XML

svccfg import "$manifest"
svcadm enable -s site/old
svcadm disable -s site/old
svccfg delete site/old
if svcs site/old >/dev/null 2>&1; then
	echo "disable-delete: site/old still listed after svccfg delete" >&2
	exit 1
fi

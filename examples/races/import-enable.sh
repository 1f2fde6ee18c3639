#!/bin/sh
# import-enable.sh: the classic install step.  Import a service's manifest, then enable it and
# wait for it to come online.  Without the import wait, "svcadm enable -s" may find the new
# instance without its "restarter" property group and fail with "misconfigured".
set -e

manifest=$(mktemp)
cat >"$manifest" <<'XML'
<?xml version="1.0"?>
<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">
<service_bundle type="manifest" name="site-web">
  <service name="site/web" type="service" version="1">
    <create_default_instance enabled="false"/>
    <single_instance/>
    <exec_method type="method" name="start" exec=":true" timeout_seconds="60"/>
    <exec_method type="method" name="stop" exec=":true" timeout_seconds="60"/>
    <property_group name="startd" type="framework">
      <propval name="duration" type="astring" value="transient"/>
    </property_group>
  </service>
</service_bundle>
XML

svccfg import "$manifest"
svcadm enable -s site/web

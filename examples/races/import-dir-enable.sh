#!/bin/sh
# import-dir-enable.sh: a site's services ship as a directory of manifests: import the whole
# directory in one command, then enable each service and wait for it.  Every instance the
# import created is in the window until svc.startd has written its "restarter" property group.
set -e

dir=$(mktemp -d)
for name in db cache web; do
	cat >"$dir/$name.xml" <<XML
<?xml version="1.0"?>
<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">
<service_bundle type="manifest" name="site-$name">
  <service name="site/$name" type="service" version="1">
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
done

svccfg import "$dir"
for name in db cache web; do
	svcadm enable -s "site/$name"
done

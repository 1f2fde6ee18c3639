# manifests.sh: the manifest the integration tests, benchmarks and stress harness all import
# (sourced, bash).

# transient_manifest SERVICE BUNDLE: svc:/SERVICE:default, a transient service whose start and
# stop are ":true", disabled in the manifest (the caller enables it), so going online needs
# only svc.startd's own work.
transient_manifest() {
	cat <<EOF_MANIFEST
<?xml version="1.0"?>
<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">
<service_bundle type="manifest" name="$2">
  <service name="$1" type="service" version="1">
    <create_default_instance enabled="false"/>
    <single_instance/>
    <exec_method type="method" name="start" exec=":true" timeout_seconds="60"/>
    <exec_method type="method" name="stop" exec=":true" timeout_seconds="60"/>
    <property_group name="startd" type="framework">
      <propval name="duration" type="astring" value="transient"/>
    </property_group>
  </service>
</service_bundle>
EOF_MANIFEST
}

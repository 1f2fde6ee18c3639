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

# burst_manifest NAME SERVICES INSTANCES EVERY: one manifest of SERVICES services
# svc:/NAME/sS, each with INSTANCES instances iI, transient with ":true" methods like
# transient_manifest's; instance I enabled when EVERY > 0 and I % EVERY == 0, else disabled.
# A burst of new instances for svc.startd's insert path (issue 14).
burst_manifest() {
	local s i en
	echo '<?xml version="1.0"?>'
	echo '<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">'
	echo '<service_bundle type="manifest" name="burst">'
	for ((s = 0; s < $2; s++)); do
		echo "<service name=\"$1/s$s\" type=\"service\" version=\"1\">"
		echo '<exec_method type="method" name="start" exec=":true" timeout_seconds="60"/>'
		echo '<exec_method type="method" name="stop" exec=":true" timeout_seconds="60"/>'
		echo '<property_group name="startd" type="framework">'
		echo '<propval name="duration" type="astring" value="transient"/>'
		echo '</property_group>'
		for ((i = 0; i < $3; i++)); do
			en=false
			[ "$4" -gt 0 ] && [ $((i % $4)) -eq 0 ] && en=true
			echo "<instance name=\"i$i\" enabled=\"$en\"/>"
		done
		echo '</service>'
	done
	echo '</service_bundle>'
}

#!/bin/bash
# svccfg import, validate, export, archive, extract, apply and inventory, one case per meson test
# (the argument names it).  The illumos corpus is read where it lies ($MF_CORPUS), never copied.
#
#   corpus       the 182 manifests validate and import into one fresh repository; services,
#                instances and property values agree with import-expect.py's reading of the XML
#   roundtrip    export of every imported service, re-imported in the same order into a fresh
#                repository: the two repositories are equal entity by entity
#   profiles     the 14 profiles apply (the two that include files absent from the corpus fail
#                at the xi:include line and change nothing); enabled flags agree with the XML
#   archive      archive re-imports to the same repository; extract + apply restores enabled
#   hash-skip    an unchanged manifest is skipped; a changed one updates what it names, and
#                leaves an instance's enabled flag as the administrator set it
#   inventory    the FMRIs a manifest defines
#   dependents   a dependent's pg lands in its target when the target exists (also further down
#                the same manifest), marked external, and export gives it back as <dependent>
#   options      import -n (no refresh), -v, a profile given to import and a manifest to apply
#   bad-CASE     bad input: clear FILE:LINE error, exit 1, the repository unchanged
#   bad-dir      a directory with one bad manifest among good ones
source "$(dirname "$0")/lib.sh"
need_var SVCCFG REPODUMP
case_name=${1:?usage: test-import.sh CASE}
TEST_NAME="import/$case_name"
EXPECT="$(dirname "$0")/import-expect.py"
CORPUS="${MF_CORPUS:-}/illumos"
sandbox_start
FIX="$ROOT/fixtures"
mkdir -m 0755 "$FIX"

need_corpus() {
	[ -d "$CORPUS" ] || skip "no corpus at $CORPUS"
	command -v python3 >/dev/null || skip "python3 is needed for the expectations"
	mapfile -t MANIFESTS < <(find "$CORPUS" -name '*.xml' | LC_ALL=C sort |
		xargs grep -L "type=.profile" | xargs grep -l "<service_bundle")
	mapfile -t PROFILES < <(find "$CORPUS" -name '*.xml' | LC_ALL=C sort |
		xargs grep -l "type=.profile")
	[ "${#MANIFESTS[@]}" -eq 182 ] || fail "expected 182 corpus manifests, found ${#MANIFESTS[@]}"
	[ "${#PROFILES[@]}" -eq 14 ] || fail "expected 14 corpus profiles, found ${#PROFILES[@]}"
}

# What an import wrote (lib.sh), and the current content (no snapshots): quicker than dump.
content() { import_content; }
current() {
	"$REPODUMP" --no-snapshots || fail "repodump failed"
}

import_corpus() {
	ok "$SVCCFG" import "${MANIFESTS[@]}"
}

# good NAME [VALUE]: a small valid manifest for service site/NAME.
good() {
	cat <<EOF
<?xml version="1.0"?>
<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">
<service_bundle type="manifest" name="$1">
  <service name="site/$1" type="service" version="1">
    <create_default_instance enabled="true"/>
    <single_instance/>
    <dependency name="fs" grouping="require_all" restart_on="none" type="service">
      <service_fmri value="svc:/system/filesystem/local"/>
    </dependency>
    <exec_method type="method" name="start" exec="/bin/true" timeout_seconds="60"/>
    <property_group name="config" type="application">
      <propval name="v" type="count" value="${2:-7}"/>
      <property name="l" type="astring">
        <astring_list><value_node value="a"/><value_node value="b c"/></astring_list>
      </property>
    </property_group>
    <instance name="second" enabled="false"/>
    <stability value="Unstable"/>
  </service>
</service_bundle>
EOF
}

# bad NAME: a manifest with one defect, its expected message (a regex, after FILE:LINE: ).
bad_manifest() {
	local f="$FIX/bad.xml"
	case "$1" in
	not-xml) echo "this is not XML at all" >"$f"; BAD_LINE=1 BAD_RE='' ;;
	truncated) good trunc | head -c 400 >"$f"; BAD_LINE='[0-9]+' BAD_RE='' ;;
	wrong-root)
		printf '%s\n' '<?xml version="1.0"?>' \
			'<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">' \
			'<services name="x"/>' >"$f"
		BAD_LINE=3 BAD_RE='service_bundle|root' ;;
	unknown-element)
		good ue | sed 's|<single_instance/>|<single_instance/><frobnicate/>|' >"$f"
		BAD_LINE=6 BAD_RE='frobnicate' ;;
	unknown-attribute)
		good ua | sed 's|<single_instance/>|<single_instance colour="red"/>|' >"$f"
		BAD_LINE=6 BAD_RE='colour' ;;
	bad-count) good bc -1 >"$f"; BAD_LINE=12 BAD_RE='-1' ;;
	bad-boolean)
		good bb | sed 's|type="count" value="7"|type="boolean" value="yes"|' >"$f"
		BAD_LINE=12 BAD_RE='yes' ;;
	bad-ipv4)
		good bi | sed 's|type="count" value="7"|type="net_address_v4" value="300.1.2.3"|' >"$f"
		BAD_LINE=12 BAD_RE='300\.1\.2\.3' ;;
	duplicate-instance)
		good di | sed 's|<instance name="second" enabled="false"/>|&\n<instance name="second"/>|' |
			sed 's|<instance name="second"/>|<instance name="second" enabled="true"/>|' >"$f"
		BAD_LINE=18 BAD_RE='second' ;;
	type-clash)
		# Valid for the reader; refused by configd at commit (general exists as framework):
		# the whole batch must roll back.
		good tc | sed 's|<property_group name="config"|<property_group name="general"|' >"$f"
		BAD_LINE='[0-9]+' BAD_RE='general' ;;
	*) fail "unknown bad case $1" ;;
	esac
}

case "$case_name" in
corpus)
	need_corpus
	ok "$SVCCFG" validate "${MANIFESTS[@]}"
	start=$(date +%s%N)
	import_corpus
	log "imported 182 manifests in $((($(date +%s%N) - start) / 1000000)) ms"
	dump >"$ROOT/dump"
	ok python3 "$EXPECT" "$ROOT/dump" "${MANIFESTS[@]}"
	log "$OUT"
	# Every instance has the snapshots of a first import, and running from the refresh.
	for snap in initial last-import running; do
		n=$(grep -c "^    snapshot $snap\$" "$ROOT/dump")
		assert_eq 195 "$n" "instances with a $snap snapshot"
	done
	;;
roundtrip)
	need_corpus
	import_corpus
	content >"$ROOT/a"
	mkdir "$ROOT/export"
	# One svccfg for all inventories and one for all exports (in import order), split after.
	printf 'inventory "%s"\n' "${MANIFESTS[@]}" >"$ROOT/inventory.cmd"
	ok "$SVCCFG" -f "$ROOT/inventory.cmd"
	mapfile -t svcs < <(grep -v '^svc:/[^:]*:[^:]*$' <<<"$OUT")
	printf 'export %s\n' "${svcs[@]}" >"$ROOT/export.cmd"
	"$SVCCFG" -f "$ROOT/export.cmd" >"$ROOT/exports" || fail "export failed"
	(cd "$ROOT/export" && csplit -s -z -n 3 -f '' -b '%03d.xml' "$ROOT/exports" '/^<?xml /' '{*}')
	n=$(find "$ROOT/export" -name '*.xml' | wc -l)
	assert_eq "${#svcs[@]}" "$n" "exported bundles"
	fresh_repository
	ok "$SVCCFG" import "$ROOT/export"
	content >"$ROOT/b"
	[ "$(wc -l <"$ROOT/a")" -gt 9000 ] || fail "the corpus dump is too small to mean anything"
	diff -u "$ROOT/a" "$ROOT/b" >"$ROOT/diff" ||
		fail "re-import of the exports differs: $(head -40 "$ROOT/diff")"
	log "$n services exported and re-imported; $(wc -l <"$ROOT/a") dump lines equal"
	# illumos' element form (svccfg_libscf.c export_service, export_pg): every pg an element
	# made comes back as that element, never as a raw <property_group> of its type.
	forms=""
	forms=$(cat "$ROOT"/export/*.xml)
	assert_no_match '<property_group [^>]*type="(method|dependency|template|template_manpage|template_doc_link|notify_params)"' \
		"$forms" "the exports"
	assert_no_match '<property_group name="method_context"' "$forms" "the exports"
	# An instance's general/enabled is its element's attribute, not a property.
	assert_eq "" "$(awk '/<property_group name="general"/ { g = 1 } g && /name="enabled"/ { print }
		/<\/property_group>/ { g = 0 }' <<<"$forms")" "general/enabled written as a property"
	for e in '<exec_method ' '<dependency ' '<dependent ' '<method_context' '<template>' \
		'<manpage ' '<notification_parameters>' '<create_default_instance ' \
		'<instance name="[^"]*" enabled="(true|false)"' '<single_instance/>' '<stability '; do
		assert_match "$e" "$forms" "the exports' elements"
	done
	;;
profiles)
	need_corpus
	import_corpus
	applied=()
	for p in "${PROFILES[@]}"; do
		case "$p" in
		*/generic_open.xml | */generic_limited_net.xml)
			before=$(dump)
			run "$SVCCFG" apply "$p"
			[ "$RC" -eq 1 ] || fail "apply $p: expected exit 1, got $RC"
			inc='cannot include "file:/etc/svc/profile/name_service.xml"'
			assert_match "$(basename "$p"):[0-9]+: $inc" "$ERR" "apply $p"
			assert_unchanged "$before" "apply of $p"
			;;
		*)
			run "$SVCCFG" apply "$p"
			[ "$RC" -eq 0 ] || fail "apply $p failed: $ERR"
			printf '%s\n' "$ERR" >"$ROOT/apply-$((${#applied[@]} + 1)).err"
			applied+=("$p")
			;;
		esac
	done
	assert_eq 12 "${#applied[@]}" "profiles applied"
	# The values the profiles set (the last one wins), checked once against the XML.
	current >"$ROOT/dump"
	ok python3 "$EXPECT" --profiles "$ROOT/dump" "${applied[@]}"
	log "$(tail -n 1 <<<"$OUT")"
	i=0
	while read -r p _ n; do
		i=$((i + 1))
		err=$(cat "$ROOT/apply-$i.err")
		if [ "$n" -eq 0 ]; then
			assert_no_match 'does not exist' "$err" "apply $p"
		else
			assert_eq "$n" "$(grep -c 'does not exist; profile entries for it are ignored' <<<"$err")" \
				"warnings of apply $p"
		fi
	done < <(grep ' missing ' <<<"$OUT")
	assert_eq 12 "$i" "profiles checked"
	;;
archive)
	need_corpus
	import_corpus
	content >"$ROOT/a"
	"$SVCCFG" archive >"$ROOT/archive.xml" || fail "archive failed"
	"$SVCCFG" extract >"$ROOT/extract.xml" || fail "extract failed"
	ok "$SVCCFG" validate "$ROOT/archive.xml" "$ROOT/extract.xml"
	fresh_repository
	ok "$SVCCFG" restore "$ROOT/archive.xml"
	content >"$ROOT/b"
	diff -u "$ROOT/a" "$ROOT/b" >"$ROOT/diff" ||
		fail "re-import of the archive differs: $(head -40 "$ROOT/diff")"
	# extract + apply brings back enabled flags changed since.
	ok "$SVCCFG" -s svc:/network/ssh:default setprop general/enabled = false
	ok "$SVCCFG" -s svc:/system/cron:default setprop general/enabled = false
	ok "$SVCCFG" apply "$ROOT/extract.xml"
	content >"$ROOT/c"
	diff -u "$ROOT/a" "$ROOT/c" >"$ROOT/diff" ||
		fail "extract + apply did not restore: $(head -40 "$ROOT/diff")"
	;;
hash-skip)
	good hs >"$FIX/hs.xml"
	ok "$SVCCFG" import "$FIX/hs.xml"
	assert_eq "" "$OUT" "first import's output"
	before=$(dump)
	# The recorded hash is the file's SHA-256 (checked against coreutils' sha256sum).
	sum=$(sha256sum "$FIX/hs.xml" | cut -d' ' -f1)
	assert_match "prop md5sum opaque \\[$sum\\]" "$before" "the recorded hash"
	ok "$SVCCFG" import "$FIX/hs.xml"
	assert_match 'hs\.xml: unchanged since its last import; skipped\.' "$OUT"
	assert_unchanged "$before" "a second import of an unchanged manifest"
	# The administrator disables an instance; the manifest changes a value.
	ok "$SVCCFG" -s svc:/site/hs:default setprop general/enabled = false
	good hs 8 >"$FIX/hs.xml"
	ok "$SVCCFG" import "$FIX/hs.xml"
	assert_no_match skipped "$OUT"
	after=$(dump)
	assert_match 'prop v count \[8\]' "$after" "the changed value"
	ok "$SVCCFG" -s svc:/site/hs:default listprop general/enabled
	assert_match 'false' "$OUT" "the administrator's enabled flag after re-import"
	# A deleted service is imported again even though the file did not change.
	ok "$SVCCFG" delete svc:/site/hs
	ok "$SVCCFG" import "$FIX/hs.xml"
	assert_no_match skipped "$OUT"
	assert_match 'instance svc:/site/hs:default' "$(dump)" "the re-imported service"
	;;
inventory)
	good inv >"$FIX/inv.xml"
	ok "$SVCCFG" inventory "$FIX/inv.xml"
	# illumos' order (svccfg_xml.c lxml_inventory): the instances, last first, then the service.
	assert_eq $'svc:/site/inv:second\nsvc:/site/inv:default\nsvc:/site/inv' "$OUT" "inventory"
	printf '%s\n' '<?xml version="1.0"?>' \
		'<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">' \
		'<service_bundle type="manifest" name="two">' \
		'  <service name="site/one" type="service" version="1">' \
		'    <instance name="a" enabled="false"/><instance name="b" enabled="false"/>' \
		'  </service>' \
		'  <service name="site/two" type="service" version="1">' \
		'    <instance name="c" enabled="false"/>' \
		'  </service>' '</service_bundle>' >"$FIX/two.xml"
	ok "$SVCCFG" inventory "$FIX/two.xml"
	assert_eq $'svc:/site/one:b\nsvc:/site/one:a\nsvc:/site/two:c\nsvc:/site/one\nsvc:/site/two' \
		"$OUT" "inventory of two services"
	log "an archive is no manifest, to inventory nor to import (lxml_get_bundle)"
	sed 's/type="manifest"/type="archive"/' "$FIX/two.xml" >"$FIX/ar.xml"
	for cmd in inventory import; do
		run "$SVCCFG" $cmd "$FIX/ar.xml"
		assert_rc 1 "$cmd of an archive"
		assert_eq "svccfg: $FIX/ar.xml: document is not a manifest." "$ERR" "$cmd of an archive"
		assert_eq "" "$OUT" "$cmd of an archive: stdout"
	done
	log "a document libxml2 cannot parse: illumos' words first"
	: >"$FIX/empty.xml"
	echo "not XML" >"$FIX/text.xml"
	for f in empty text; do
		run "$SVCCFG" inventory "$FIX/$f.xml"
		assert_rc 1 "inventory of $f.xml"
		assert_match "^$FIX/$f\.xml:1: couldn't parse document: " "$ERR" "inventory of $f.xml"
	done
	# A directory does not read as a document either (illumos' xmlReadFile() fails on it).
	run "$SVCCFG" inventory "$FIX"
	assert_rc 1 "inventory of a directory"
	assert_eq "$FIX: couldn't parse document: Is a directory" "$ERR" "inventory of a directory"
	assert_eq "" "$(dump)" "the repository after inventory"
	;;
options)
	good nr >"$FIX/nr.xml"
	ok "$SVCCFG" import -n "$FIX/nr.xml"
	ok "$SVCCFG" -s svc:/site/nr:default listsnap
	assert_eq $'initial\nlast-import' "$OUT" "snapshots after import -n"
	good vv >"$FIX/vv.xml"
	ok "$SVCCFG" -v import "$FIX/vv.xml"
	assert_match 'Taking "initial" snapshot for svc:/site/vv:second' "$ERR" "import -v"
	assert_match 'Successful import of .*vv\.xml' "$ERR" "import -v"
	ok "$SVCCFG" -s svc:/site/vv:default listsnap
	assert_eq $'initial\nlast-import\nrunning' "$OUT" "snapshots after import"
	before=$(dump)
	printf '%s\n' '<?xml version="1.0"?>' \
		'<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">' \
		'<service_bundle type="profile" name="p">' \
		'  <service name="site/vv" type="service" version="1">' \
		'    <instance name="second" enabled="true"/>' \
		'  </service>' '</service_bundle>' >"$FIX/p.xml"
	refused "$SVCCFG" import "$FIX/p.xml"
	assert_match 'p\.xml: document is not a manifest\.' "$ERR"
	refused "$SVCCFG" apply "$FIX/vv.xml"
	assert_match 'vv\.xml: document is not a profile\.' "$ERR"
	refused "$SVCCFG" import -x "$FIX/vv.xml"
	assert_unchanged "$before" "refused import and apply"
	ok "$SVCCFG" validate "$FIX/p.xml" "$FIX/vv.xml"
	# "> FILE" as in illumos' command language, from a command file and from the command line.
	printf 'export svc:/site/vv > "%s"\nextract > "%s"\n' "$FIX/vv-exp.xml" "$FIX/ex.xml" \
		>"$FIX/cmds"
	ok "$SVCCFG" -f "$FIX/cmds"
	assert_eq "" "$OUT" "stdout of redirected exports"
	ok "$SVCCFG" archive '>' "$FIX/ar.xml"
	ok "$SVCCFG" validate "$FIX/vv-exp.xml" "$FIX/ex.xml" "$FIX/ar.xml"
	ok "$SVCCFG" inventory "$FIX/vv-exp.xml"
	assert_eq $'svc:/site/vv:second\nsvc:/site/vv:default\nsvc:/site/vv' "$OUT" "exported"
	refused "$SVCCFG" export svc:/site/vv '>'
	ok "$SVCCFG" apply "$FIX/p.xml"
	ok "$SVCCFG" -s svc:/site/vv:second listprop general/enabled
	assert_match 'true' "$OUT" "enabled after apply"
	;;
dependents)
	dep_manifest() { # NAME TARGET [extra service]
		cat <<EOF
<?xml version="1.0"?>
<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">
<service_bundle type="manifest" name="$1">
  <service name="site/$1" type="service" version="1">
    <create_default_instance enabled="false"/>
    <dependent name="$1_tgt" grouping="optional_all" restart_on="none">
      <service_fmri value="$2"/>
    </dependent>
  </service>
  ${3:-}
</service_bundle>
EOF
	}
	# The target does not exist: only the dependents entry.
	dep_manifest early svc:/site/tgt >"$FIX/early.xml"
	ok "$SVCCFG" import "$FIX/early.xml"
	d=$(current)
	assert_match 'prop early_tgt fmri \[svc:/site/tgt\]' "$d" "the dependents entry"
	assert_no_match 'pg early_tgt' "$d" "a pg in the missing target"
	# The target further down the same manifest: its pg is written.
	tgt='<service name="site/tgt" type="service" version="1">'
	tgt+='<create_default_instance enabled="true"/></service>'
	dep_manifest late svc:/site/tgt:default "$tgt" >"$FIX/late.xml"
	ok "$SVCCFG" import "$FIX/late.xml"
	ok "$SVCCFG" -s svc:/site/tgt:default listprop late_tgt
	assert_line 'late_tgt dependency' "$OUT"
	assert_line 'late_tgt/entities fmri svc:/site/late' "$OUT"
	assert_line 'late_tgt/external boolean true' "$OUT"
	assert_line 'late_tgt/grouping astring optional_all' "$OUT"
	# Export: the dependent comes back as <dependent> with the target's grouping; the
	# target's export leaves the pg to it; the one without a target stays a plain pg.
	ok "$SVCCFG" export svc:/site/late
	assert_match '<dependent name="late_tgt" grouping="optional_all" restart_on="none">' "$OUT"
	ok "$SVCCFG" export svc:/site/tgt
	assert_no_match 'late_tgt' "$OUT" "the target's export"
	ok "$SVCCFG" export svc:/site/early
	assert_no_match '<dependent' "$OUT" "the export of a dependent with no target pg"
	assert_match '<property_group name="dependents" type="framework">' "$OUT"
	# Deleting the dependent's service takes the pg it wrote into the target along (one
	# batch); a pg of that name that is not ours (not external) is left alone.
	ok "$SVCCFG" delete svc:/site/late
	ok "$SVCCFG" -s svc:/site/tgt:default listpg
	assert_no_match 'late_tgt' "$OUT" "the target's pg after deleting its dependent"
	assert_match 'general' "$OUT" "the target itself"
	ok "$SVCCFG" -s svc:/site/tgt addpg early_tgt dependency
	ok "$SVCCFG" delete svc:/site/early
	ok "$SVCCFG" -s svc:/site/tgt listpg
	assert_match '^early_tgt' "$OUT" "an administrator's pg of the same name"	# issue 20, 3: the target outside the manifest is refreshed (lscf_dependent_import), so
	# that the pg reaches its running snapshot, which svcprop and the restarter read.
	dep_manifest outside svc:/site/tgt:default >"$FIX/outside.xml"
	ok "$SVCCFG" import "$FIX/outside.xml"
	ok "$SVCPROP" -p outside_tgt/entities svc:/site/tgt:default
	assert_eq svc:/site/outside "$OUT" "the dependent's pg in the target's running snapshot"
	# A dependent deleted that was never imported (no "dependents" pg) is no error; and a
	# dependency with no <service_fmri> is imported (the DTD's service_fmri*).
	printf '%s\n' '<?xml version="1.0"?>' \
		'<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">' \
		'<service_bundle type="manifest" name="del">' \
		'  <service name="site/del" type="service" version="1">' \
		'    <create_default_instance enabled="false"/>' \
		'    <dependency name="nothing" grouping="require_all" restart_on="none" type="service"/>' \
		'    <dependent name="never" grouping="require_all" restart_on="none" delete="true">' \
		'      <service_fmri value="svc:/site/tgt:default"/>' \
		'    </dependent>' \
		'  </service>' '</service_bundle>' >"$FIX/del.xml"
	ok "$SVCCFG" import "$FIX/del.xml"
	ok "$SVCCFG" -s svc:/site/del listprop nothing/entities
	assert_eq "nothing/entities fmri" "$(squeeze <<<"$OUT")" "a dependency on nothing"
	ok "$SVCCFG" -s svc:/site/del listpg
	assert_no_match '^dependents' "$OUT" "no dependents pg made for a deletion"
	;;
bad-unreadable)
	good ur >"$FIX/ur.xml"
	chmod 000 "$FIX/ur.xml"
	good ok1 >"$FIX/ok1.xml"
	ok "$SVCCFG" import "$FIX/ok1.xml"
	before=$(dump)
	if [ "$(id -u)" -eq 0 ]; then
		command -v setpriv >/dev/null || skip "root, and no setpriv to drop privileges"
		run setpriv --reuid=65534 --regid=65534 --clear-groups "$SVCCFG" validate "$FIX/ur.xml"
	else
		run "$SVCCFG" validate "$FIX/ur.xml"
	fi
	[ "$RC" -eq 1 ] || fail "validate of an unreadable file: expected exit 1, got $RC: $ERR"
	assert_match "ur\.xml.*(Permission denied|cannot)" "$ERR"
	# A directory where a file is expected fails the same way, root or not.
	mkdir "$FIX/dir.xml"
	run "$SVCCFG" import "$FIX/dir.xml"
	[ "$RC" -eq 1 ] || fail "import of an empty directory named .xml: expected exit 1, got $RC"
	chmod 644 "$FIX/ur.xml"
	rmdir "$FIX/dir.xml"
	assert_unchanged "$before" "the unreadable file"
	;;
bad-dir)
	good ok1 >"$FIX/a-ok1.xml"
	bad_manifest bad-ipv4
	mv "$FIX/bad.xml" "$FIX/b-bad.xml"
	good ok2 >"$FIX/c-ok2.xml"
	run "$SVCCFG" import "$FIX"
	[ "$RC" -eq 1 ] || fail "directory with a bad manifest: expected exit 1, got $RC: $ERR"
	assert_match "b-bad\.xml:12: .*300\.1\.2\.3" "$ERR"
	d=$(dump)
	assert_match '^service svc:/site/ok1$' "$d" "the first good manifest"
	assert_match '^service svc:/site/ok2$' "$d" "the manifest after the bad one"
	assert_no_match 'svc:/site/bi|b-bad' "$d" "the bad manifest"
	;;
bad-*)
	which=${case_name#bad-}
	good ok1 >"$FIX/ok1.xml"
	ok "$SVCCFG" import "$FIX/ok1.xml"
	before=$(dump)
	assert_match '^service svc:/site/ok1$' "$before" "the fixture"
	bad_manifest "$which"
	for cmd in validate import; do
		[ "$cmd" = validate ] && [ "$which" = type-clash ] && continue
		run "$SVCCFG" "$cmd" "$FIX/bad.xml"
		[ "$RC" -eq 1 ] || fail "$cmd of a bad manifest: expected exit 1, got $RC: $ERR"
		assert_match "bad\.xml:$BAD_LINE: .*$BAD_RE" "$ERR" "$cmd's message"
		assert_unchanged "$before" "$cmd of the bad manifest ($which)"
	done
	;;
*)
	fail "unknown case $case_name"
	;;
esac
log "ok"

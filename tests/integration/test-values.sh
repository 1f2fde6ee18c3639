#!/bin/bash
# Every value the CLI accepts survives a backup, and no value reaches a terminal raw (issue 18,
# docs/values.md "Control characters", docs/decisions.md).  values-set.py makes the values: all
# 14 types and, in the string types, every byte a value may hold, every UTF-8 sequence class,
# XML's special characters, blanks, backslashes, empty strings and lists.
#
#   export   the values set through svccfg (a command file, raw bytes and escapes, and the
#            command line) are stored exactly as given (canonical forms for the typed ones);
#            svccfg export, then an import into a fresh repository: the same content, byte for
#            byte (repodump --hex)
#   archive  the same through svccfg archive
#   refused  each character no value may hold (the C0 controls but TAB, LF, CR; noncharacters
#            such as U+FFFE), through a command file, the command line and a manifest: refused with a
#            message naming it, no raw control character on stderr, the repository unchanged
#   legacy   values stored before issue 18 (written into the database as an older configd
#            stored them) holding ESC, BEL, CR, DEL, U+009B: svcprop, svccfg listprop, svcs -l
#            and messages show escapes, never the raw bytes; export and archive fail naming the
#            property and write nothing
# usage: test-values.sh CASE
source "$(dirname "$0")/lib.sh"
CASE=${1:?usage: test-values.sh CASE}
TEST_NAME="values/$CASE"
need_var SVCCFG SVCPROP REPODUMP
command -v python3 >/dev/null || skip "python3 is needed to make the values"
SET="$(dirname "$0")/values-set.py"
SVC=svc:/test/values
INST=$SVC:default
sandbox_start

# A raw control character (other than the LF that ends lines) in a file: none may reach a
# terminal.  Prints the offending lines' numbers.
raw_controls() { LC_ALL=C grep -naP '[\x01-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1" || true; }

assert_no_raw_controls() {
	local what=$1 text=$2 found
	printf '%s\n' "$text" >"$ROOT/.text"
	found=$(raw_controls "$ROOT/.text" | cut -c1-200 | cat -v)
	[ -z "$found" ] || fail "$what carries raw control characters: $found"
}

# The test's pgs (t, argv) of svc:/test/values and its instance, from a hex dump.
values_pgs() {
	awk '
		/^service / { keep = ($2 == "'$SVC'"); if (keep) print; next }
		!keep { next }
		/^  instance / { print; next }
		/^ *pg / { pg = ($2 == "t" || $2 == "argv") }
		pg { print }' "$1"
}

# refusal U+XXXX: the last command's refusal of that character says which and why, and carries
# no raw control character.
refusal() {
	local re=${1/+/\\+}
	assert_match "Invalid \"astring\" value .*it holds $re, a (control character|noncharacter) no value may hold" \
		"$ERR" "the refusal of $1"
	assert_no_raw_controls "the refusal of $1" "$ERR"
}

# Sets every value through svccfg, and tries every character no value may hold (in pg ctl): one
# that svccfg accepted would be a value the CLI accepts, and must survive the backup too.
set_all() {
	local a b c d f
	python3 "$SET" accepted "$ROOT/cmds" "$ROOT/argv" "$ROOT/expected" ||
		fail "values-set.py failed"
	python3 "$SET" refused "$ROOT/refused" || fail "values-set.py failed"
	ok "$SVCCFG" -f "$ROOT/cmds"
	while IFS= read -r -d '' a && IFS= read -r -d '' b && IFS= read -r -d '' c &&
		IFS= read -r -d '' d; do
		ok "$SVCCFG" -s "$INST" setprop "$a" "$b" "$c" "$d"
	done <"$ROOT/argv"
	ok "$SVCCFG" -s "$SVC" addpg ctl application
	mkdir "$ROOT/refusals"
	for f in "$ROOT"/refused/U+*; do
		[ "${f%.arg}" = "$f" ] || continue
		run "$SVCCFG" -f "$f"
		if [ "$RC" -eq 0 ]; then
			log "accepted: ${f##*/} (it must survive the backup)"
		else
			printf '%s' "$ERR" >"$ROOT/refusals/${f##*/}"
		fi
	done
	import_content --hex >"$ROOT/set.dump"
}

# After the backup: each refusal set_all met said which character and why.
check_refusals() {
	local f
	for f in "$ROOT"/refusals/*; do
		[ -e "$f" ] || continue
		ERR=$(cat "$f")
		refusal "${f##*/}"
	done
}

# The repository holds exactly what values-set.py gave (canonical forms for the typed values).
check_stored() {
	values_pgs "$ROOT/set.dump" >"$ROOT/set.values"
	diff -u "$ROOT/expected" "$ROOT/set.values" >"$ROOT/set.diff" ||
		fail "the values set through svccfg are not what was given:
$(head -c 3000 "$ROOT/set.diff")"
	log "$(grep -c ' prop ' "$ROOT/expected") properties, $(grep -o ' \[' "$ROOT/expected" | wc -l) values stored as given"
}

# round_trip WHAT FILE: FILE (a backup of the whole test service) imports into a fresh
# repository to the same content as before.
round_trip() {
	local what=$1 file=$2 back=import
	[ -s "$file" ] || fail "$what wrote nothing"
	fresh_repository
	# An archive comes back through restore: import takes only a manifest (as illumos').
	[ "$what" != "svccfg archive" ] || back=restore
	run "$SVCCFG" $back "$file"
	[ "$RC" -eq 0 ] || fail "$what does not import into a fresh repository:
$(head -c 2000 <<<"$ERR" | cat -v)"
	# XML 1.0 has no way to write these; a bundle that holds one imports nowhere.
	! LC_ALL=C grep -qaP '[\x01-\x08\x0b\x0c\x0e-\x1f]|\xef\xbf[\xbe\xbf]' "$file" ||
		fail "$what holds characters XML 1.0 cannot carry"
	import_content --hex >"$ROOT/after.dump"
	diff -u "$ROOT/set.dump" "$ROOT/after.dump" >"$ROOT/after.diff" ||
		fail "$what, imported into a fresh repository, differs:
$(head -c 3000 "$ROOT/after.diff")"
	log "$what imports back to the same content ($(wc -l <"$ROOT/set.dump") dump lines)"
}

case $CASE in
export)
	set_all
	ok "$SVCCFG" export "$SVC"
	"$SVCCFG" export "$SVC" >"$ROOT/export.xml" || fail "export failed"
	round_trip "svccfg export" "$ROOT/export.xml"
	check_stored
	check_refusals
	;;
archive)
	set_all
	"$SVCCFG" archive >"$ROOT/archive.xml" || fail "archive failed"
	round_trip "svccfg archive" "$ROOT/archive.xml"
	check_stored
	check_refusals
	;;
refused)
	ok "$SVCCFG" add test/values
	ok "$SVCCFG" -s "$SVC" addpg ctl application
	python3 "$SET" refused "$ROOT/refused" || fail "values-set.py failed"
	before=$(dump)
	n=0
	for f in "$ROOT"/refused/U+*; do
		[ "${f%.arg}" = "$f" ] || continue
		refused "$SVCCFG" -f "$f"
		refusal "${f##*/}"
		# The command line: the argument is the value, bytes and all.
		refused "$SVCCFG" -s "$SVC" setprop ctl/bad = astring: "$(cat "$f.arg")"
		refusal "${f##*/}"
		n=$((n + 1))
	done
	assert_eq 34 "$n" "characters refused"
	# A manifest cannot even hold them: the XML reader says where.
	cat >"$ROOT/ctl.xml" <<'EOF'
<?xml version="1.0"?>
<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">
<service_bundle type="manifest" name="ctl">
  <service name="test/ctl" type="service" version="1">
    <property_group name="t" type="application">
      <propval name="bad" type="astring" value="x&#27;y"/>
    </property_group>
  </service>
</service_bundle>
EOF
	refused "$SVCCFG" import "$ROOT/ctl.xml"
	assert_match "ctl.xml:6: couldn't parse document" "$ERR" "a character reference to ESC"
	assert_unchanged "$before" "the refused values"
	;;
legacy)
	ok "$SVCCFG" add test/values
	ok "$SVCCFG" -s "$SVC" addpg t application
	ok "$SVCCFG" -s "$SVC" setprop t/legacy = astring: '"placeholder"'
	ok "$SVCCFG" -s "$SVC" setprop t/fine = astring: '"fine"'
	ok "$SVCCFG" -s "$SVC" add default
	ok "$SVCCFG" -s "$INST" addpg tm_common_name template
	ok "$SVCCFG" -s "$INST" setprop tm_common_name/C = ustring: '"placeholder"'
	configd_stop
	# As a configd before issue 18 stored them: each value followed by its NUL.
	python3 - "$ROOT/etc/svc/repository.db" <<'EOF' || fail "could not write the old values"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def put(fmri, pg, prop, values):
    blob = b"".join(v.encode() + b"\0" for v in values)
    n = db.execute("UPDATE props SET vals = ? WHERE name = ? AND pg = (SELECT p.id FROM pgs p "
                   "JOIN entities e ON e.id = p.entity WHERE e.fmri = ? AND p.name = ?)",
                   (blob, prop, fmri, pg)).rowcount
    assert n == 1, (fmri, pg, prop)
put("svc:/test/values", "t", "legacy", ["red \x1b[31mRED\x1b[0m", "bell\x07", "cr\rover", "del\x7f", "csi\u009b2J"])
put("svc:/test/values:default", "tm_common_name", "C", ["name \x1b]0;title\x07 end"])
db.commit()
EOF
	configd_start
	ok "$SVCPROP" -p t/legacy "$SVC"
	assert_eq 'red\ \033[31mRED\033[0m bell\007 cr\rover del\177 csi\302\2332J' "$OUT" \
		"svcprop of the old values"
	ok "$SVCCFG" -s "$SVC" listprop t/legacy
	assert_eq 't/legacy  astring  "red \033[31mRED\033[0m" "bell\007" "cr\rover" "del\177" "csi\302\2332J"' \
		"$OUT" "listprop of the old values"
	if [ -n "${SVCS:-}" ] && [ -x "$SVCS" ]; then
		ok "$SVCS" -l "$INST"
		assert_line 'name name \033]0;title\007 end' "$OUT" "svcs -l"
		assert_no_raw_controls "svcs -l" "$OUT"
	else
		log "svcs is not built: svcs -l not checked"
	fi
	before=$(dump)
	refused "$SVCCFG" export "$SVC"
	assert_match "$SVC/:properties/t/legacy: value 1 \(\"red \\\\033\[31mRED\\\\033\[0m\"\) is not a valid astring: it holds U\+001B" \
		"$ERR" "export's refusal"
	assert_match "cannot be exported" "$ERR" "export's refusal"
	assert_eq "" "$OUT" "what export wrote to stdout"
	assert_no_raw_controls "export's refusal" "$ERR"
	printf 'export %s > %s\n' "$SVC" "$ROOT/out.xml" >"$ROOT/export.cmd"
	refused "$SVCCFG" -f "$ROOT/export.cmd"
	[ ! -e "$ROOT/out.xml" ] || fail "a refused export left $ROOT/out.xml"
	refused "$SVCCFG" archive
	assert_match "t/legacy: value 1 .* it holds U\+001B" "$ERR" "archive's refusal"
	assert_eq "" "$OUT" "what archive wrote to stdout"
	# Fixed, the same service exports and imports back.
	ok "$SVCCFG" -s "$SVC" setprop t/legacy = astring: '"red"'
	ok "$SVCCFG" -s "$INST" setprop tm_common_name/C = ustring: '"name"'
	ok "$SVCCFG" export "$SVC"
	assert_match '<propval name="legacy" type="astring" value="red"/>' "$OUT" "the export once fixed"
	;;
*)
	fail "unknown case $CASE"
	;;
esac
log "ok"

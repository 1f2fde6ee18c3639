#!/usr/bin/env python3
"""values-set.py: every value the CLI accepts, as svccfg commands, and what the repository must
then hold (test-values.sh).

usage: values-set.py accepted CMDFILE ARGVFILE EXPECTED
       values-set.py refused CMDDIR

accepted: CMDFILE gets the svccfg commands that set, in a service and its instance, values of
all 14 types and, for the string types, every byte a value may hold (1..255 as far as valid
UTF-8 has it: 0x01..0x7f alone, 0x80..0xbf as continuation bytes, 0xc2..0xf4 as lead bytes;
0xc0, 0xc1 and 0xf5..0xff are in no UTF-8 string), every UTF-8 sequence class in a ustring,
XML's special characters, blanks, backslashes, empty strings and lists; written raw inside quotes
in some properties and as the escapes the tools print (\\t \\n \\r \\ooo) in others.  ARGVFILE
gets the arguments of `svccfg -s FMRI setprop ...` on the command line, four per command, each
followed by a NUL.  EXPECTED gets the lines `repodump --no-snapshots --hex`
must print for the test's pgs, values in their canonical form.

refused: CMDDIR gets one command file per character no value may hold (the C0 controls but
TAB, LF, CR; the noncharacters, U+FFFE and U+FFFF among them), named by its code point, each
setting an astring ctl/cXXXX of the service to a value holding it, and beside it (NAME.arg)
that value as an argument.

Only this script knows the values; it uses none of minismf's code.
"""
import os
import sys

SVC = "svc:/test/values"
INST = SVC + ":default"

# XML 1.0 cannot carry the C0 controls but TAB, LF, CR; D-Bus does not carry noncharacters.
FORBIDDEN = [c for c in range(1, 0x20) if c not in (9, 10, 13)] + \
    [0xFDD0, 0xFDEF, 0xFFFE, 0xFFFF, 0x1FFFE, 0x10FFFF]


def utf8_lead_samples():
    """One character per byte value 0x80..0xf4 that UTF-8 can hold, each byte in its role."""
    out = [chr(0x80 + k) for k in range(0x40)]           # C2 80 .. C2 BF: every continuation byte
    out += [bytes([b, 0x80]).decode() for b in range(0xc3, 0xe0)]            # 2-byte leads
    out += ["\u0800"] + [bytes([b, 0x80, 0x80]).decode() for b in range(0xe1, 0xf0)]  # 3-byte
    out += ["\U00010000"] + [bytes([b, 0x80, 0x80, 0x80]).decode() for b in range(0xf1, 0xf5)]
    assert {b for s in out for b in s.encode()} >= set(range(0x80, 0xc0)) | set(range(0xc2, 0xf5))
    return out


ASCII = [chr(c) for c in range(1, 0x80) if c not in FORBIDDEN]
SPECIAL = ["&", "<", ">", '"', "'", "&amp;", "&#27;", "]]>", "<!-- x -->", "\t", "\n", "\r",
           "\r\n", "a\tb\nc\rd", "  lead", "trail  ", "a   b", " ", "", "\\", "\\\\n", "\\033",
           "(x)", "x=y", "#hash", "semi;colon", "$HOME `id`", "\x7f", "\u0085", "\u009b[31m"]
USTRING = ["plain", "caf\u00e9", "\u0080", "\u07ff", "\u0800", "\ud7ff",
           "\ue000", "\ufeff", "\ufffd", "\U00010000", "\U0010fffd", "\ufdcf", "\ufdf0", "\u2028\u2029",
           "e\u0301", "\u202eRTL", "\u00a0nbsp", "\U0001f600"] + SPECIAL

# (property, type, values as given, canonical values): the service's pg "t".
SERVICE = [
    ("count", "count", ["0", "18446744073709551615", "0x10", "010", "+5"],
     ["0", "18446744073709551615", "16", "8", "5"]),
    ("integer", "integer", ["-9223372036854775808", "9223372036854775807", "-0x10", "-0", "+7"],
     ["-9223372036854775808", "9223372036854775807", "-16", "0", "7"]),
    ("opaque", "opaque", ["", "00ff", "DEADbeef", "ab" * 2047], ["", "00ff", "deadbeef", "ab" * 2047]),
    ("host", "host", ["example.com", "10.0.0.1", "::1", "10.0.0.0/8"], None),
    ("hostname", "hostname", ["a", "a-b.example.com.", ".".join(["h" * 63] * 3) + "." + "h" * 61],
     None),
    ("net_address", "net_address", ["192.168.1.1/24", "2001:db8::1"], None),
    ("net_address_v4", "net_address_v4", ["0.0.0.0", "255.255.255.255/32"], None),
    ("net_address_v6", "net_address_v6", ["::", "fe80::1/64", "::ffff:1.2.3.4"], None),
    ("time", "time", ["0", "1700000000.5", "-5.25", "1.000000001", "-0.5", "7.100000000"],
     ["0", "1700000000.5", "-5.25", "1.000000001", "0.5", "7.1"]),
    ("boolean", "boolean", ["true", "false", "t", "1", "f", "0"],
     ["true", "false", "true", "true", "false", "false"]),
    ("fmri", "fmri", ["svc:/a/b:c", "svc:/a/b:c/:properties/pg/p", "file:///etc/x",
                      "file://localhost/x", "lrc:/etc/rc2_d/S99x", "svc:/x"], None),
    ("uri", "uri", ["http://example.com/a?b=c&d=<e>#f", "mailto:x@y", "urn:isbn:0", "/p a\tth",
                    "http://x/'\"&<>"], None),
    ("empty", "astring", [], None),
    ("one_empty", "astring", [""], None),
    ("ascii", "astring", ASCII + ["".join(ASCII)], None),
    ("utf8", "astring", utf8_lead_samples() + ["".join(utf8_lead_samples())], None),
    ("special", "astring", SPECIAL, None),
    ("ustring", "ustring", USTRING, None),
    ("longest", "astring", ["\u00e9" * 2047 + "x"], None),
]
# The instance's pg "t", written with the escapes instead of raw bytes, must hold the same.
INSTANCE_ESCAPED = [
    ("special", "astring", SPECIAL, None),
    ("ascii", "astring", ASCII, None),
    ("ustring", "ustring", USTRING, None),
]
# Set from the command line (pg "argv" of the instance): (property, type, the argument as the
# shell passes it, the value).  An argument with a blank and no '"', '(' or ')' is the value, raw
# bytes and all; any other is read by svccfg's lexer, as a user writes a quoted string there.
ARGV = [
    ("tab", "astring", "a\tb", "a\tb"),
    ("lf", "astring", "line1\nline2", "line1\nline2"),
    ("cr", "ustring", "over\r write", "over\r write"),
    ("c1", "ustring", "\u009b1m \u0085", "\u009b1m \u0085"),
    ("del", "astring", "del \x7f", "del \x7f"),
    ("quote", "astring", '"say \\"hi\\" \\\\ bye\\t"', 'say "hi" \\ bye\t'),
    ("empty", "astring", "", ""),
]


def quote_raw(v):
    """A quoted svccfg string holding v's bytes raw, but for '"' and '\\'."""
    return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'


def quote_escaped(v):
    """A quoted svccfg string with every control character written as the tools write it."""
    out = []
    for ch in v:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif o < 0x20 or o == 0x7f or 0x80 <= o <= 0x9f:
            out.append("".join("\\%03o" % b for b in ch.encode()))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


STRING_TYPES = {"astring", "ustring", "uri", "fmri", "host", "hostname", "net_address",
                "net_address_v4", "net_address_v6"}


def setprop(prop, typ, values, quote):
    if typ in STRING_TYPES or typ == "opaque":
        vals = " ".join(quote(v) for v in values)
    else:
        vals = " ".join(values)
    return "setprop t/%s = %s: (%s)\n" % (prop, typ, vals)


def expected_pg(entity_indent, pg, props):
    ind = entity_indent
    lines = ["%spg %s type=application flags=0\n" % (ind, pg)]
    for name, typ, values in sorted(props, key=lambda p: p[0].encode()):
        hexes = "".join(" [%s]" % v.encode().hex() for v in values)
        lines.append("%s  prop %s %s%s\n" % (ind, name, typ, hexes))
    return lines


def accepted(cmdfile, argvfile, expected):
    with open(cmdfile, "w", encoding="utf-8", newline="") as f:
        f.write("add test/values\nselect %s\naddpg t application\n" % SVC)
        for prop, typ, given, _ in SERVICE:
            f.write(setprop(prop, typ, given, quote_raw))
        # An instance exports with its enabled flag, which a manifest cannot leave out: set it.
        f.write("add default\nselect %s\naddpg t application\naddpg argv application\n" % INST)
        f.write("addpg general framework\nsetprop general/enabled = boolean: true\n")
        for prop, typ, given, _ in INSTANCE_ESCAPED:
            f.write(setprop(prop, typ, given, quote_escaped))
    with open(argvfile, "wb") as f:
        for prop, typ, arg, _ in ARGV:
            f.write(b"".join(a.encode() + b"\0" for a in ["argv/" + prop, "=", typ + ":", arg]))
    svc = [(p, t, c if c is not None else g) for p, t, g, c in SERVICE]
    inst = [(p, t, c if c is not None else g) for p, t, g, c in INSTANCE_ESCAPED]
    argv = [(p, t, [v]) for p, t, _, v in ARGV]
    with open(expected, "w", encoding="utf-8") as f:
        f.write("service %s\n" % SVC)
        f.writelines(expected_pg("  ", "t", svc))
        f.write("  instance %s\n" % INST)
        f.writelines(expected_pg("    ", "argv", argv))
        f.writelines(expected_pg("    ", "t", inst))


def refused(cmddir):
    os.makedirs(cmddir, exist_ok=True)
    for c in FORBIDDEN:
        name = os.path.join(cmddir, "U+%04X" % c)
        with open(name, "w", encoding="utf-8", newline="") as f:
            f.write("select %s\nsetprop ctl/c%04X = astring: %s\n" %
                    (SVC, c, quote_raw("x" + chr(c) + "y")))
        with open(name + ".arg", "w", encoding="utf-8", newline="") as f:
            f.write("x" + chr(c) + "y")


if __name__ == "__main__":
    if sys.argv[1] == "accepted":
        accepted(*sys.argv[2:5])
    elif sys.argv[1] == "refused":
        refused(sys.argv[2])
    else:
        sys.exit(__doc__)

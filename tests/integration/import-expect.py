#!/usr/bin/env python3
"""import-expect.py: what importing the corpus must have put in the repository, computed from
the XML alone (xml.etree, none of the importer's code), checked against a repodump.

Usage: import-expect.py DUMP MANIFEST...
       import-expect.py --profiles DUMP PROFILE...   (after applying them in this order)

Checks: the set of services and of instances (instance elements and create_default_instance);
each instance's general/enabled; every propval and property of every property_group of a
service or instance; every exec_method's exec and timeout_seconds; every method_context (of an
entity or a method: its attributes, credential, profile, environment); every dependency's
entities and grouping; every dependent's entry in "dependents"; templates' common names.
An entity/pg/property that two manifests define differently is left out (the second import
would win, which is not what this checks).  Exits 1 listing every mismatch.
"""
import re
import sys
import xml.etree.ElementTree as ET

PROP_RE = re.compile(r"^\s*prop (\S+) (\S+)(.*)$")


def parse_dump(path):
    """entity FMRI -> pg -> prop -> (type, [values]); snapshots are skipped."""
    repo, ent, pg, in_snap = {}, None, None, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            words = line.split()
            if not words:
                continue
            if words[0] in ("service", "instance"):
                ent, pg, in_snap = words[1], None, False
                repo.setdefault(ent, {})
            elif words[0] == "snapshot":
                in_snap = True
            elif in_snap:
                continue
            elif words[0] == "pg":
                pg = words[1]
                repo[ent].setdefault(pg, {})
            elif words[0] == "prop":
                m = PROP_RE.match(line)
                rest = m.group(3)
                values = re.findall(r" \[(.*?)\](?= \[|$)", rest)
                repo[ent][pg][m.group(1)] = (m.group(2), values)
    return repo


def canon(t, v):
    v = v.strip() if t not in ("astring", "ustring") else v
    if t == "boolean":
        return v.lower()
    if t in ("count", "integer"):
        return str(int(v))
    if t == "opaque":
        return v.lower()
    return v


class Expect:
    def __init__(self):
        self.services, self.instances = set(), set()
        self.props = {}  # (entity, pg, prop) -> (type, values)
        self.conflicts = set()
        self.absent = set()  # (entity, pg) that a delete="true" removes

    def prop(self, ent, pg, name, t, values):
        if any("\n" in v for v in values):
            return  # repodump prints values raw: one with a newline cannot be read back
        key, val = (ent, pg, name), (t, [canon(t, v) for v in values])
        if key in self.props and self.props[key] != val:
            self.conflicts.add(key)
        self.props[key] = val

    def entity(self, fmri, e):
        for pgel in e.findall("property_group"):
            if pgel.get("delete") == "true":
                continue
            for pv in pgel.findall("propval"):
                self.prop(fmri, pgel.get("name"), pv.get("name"), pv.get("type"),
                          [pv.get("value")])
            for p in pgel.findall("property"):
                t = p.get("type")
                vals = [vn.get("value") for lst in p for vn in lst.findall("value_node")]
                self.prop(fmri, pgel.get("name"), p.get("name"), t, vals)
        mc = e.find("method_context")
        if mc is not None:
            self.context(fmri, "method_context", mc)
        for d in e.findall("dependent"):
            if d.get("delete") != "true":
                target = d.find("service_fmri").get("value")
                self.prop(fmri, "dependents", d.get("name"), "fmri", [target])
        t = e.find("template")
        if t is not None:
            for lt in t.findall("common_name/loctext"):
                lang = lt.get("{http://www.w3.org/XML/1998/namespace}lang")
                self.prop(fmri, "tm_common_name", lang, "ustring", [lt.text.strip()])
        for m in e.findall("exec_method"):
            if m.get("delete") == "true":
                continue
            if m.find("method_context") is not None:
                self.context(fmri, m.get("name"), m.find("method_context"))
            self.prop(fmri, m.get("name"), "exec", "astring", [m.get("exec")])
            to = m.get("timeout_seconds")
            if to != "-1":
                self.prop(fmri, m.get("name"), "timeout_seconds", "count", [to])
        for d in e.findall("dependency"):
            if d.get("delete") == "true":
                self.absent.add((fmri, d.get("name")))
                continue
            ents = [s.get("value") for s in d.findall("service_fmri")]
            self.prop(fmri, d.get("name"), "entities", "fmri", ents)
            self.prop(fmri, d.get("name"), "grouping", "astring", [d.get("grouping")])

    def context(self, fmri, pg, mc):
        """method_context attributes, its credential or profile, and its environment."""
        for a in ("working_directory", "project", "resource_pool", "security_flags"):
            if mc.get(a) is not None:
                self.prop(fmri, pg, a, "astring", [mc.get(a)])
        cred = mc.find("method_credential")
        if cred is not None:
            self.prop(fmri, pg, "use_profile", "boolean", ["false"])
            for a in ("user", "group", "supp_groups", "privileges", "limit_privileges"):
                if cred.get(a) is not None:
                    self.prop(fmri, pg, a, "astring", [cred.get(a)])
        prof = mc.find("method_profile")
        if prof is not None:
            self.prop(fmri, pg, "use_profile", "boolean", ["true"])
            self.prop(fmri, pg, "profile", "astring", [prof.get("name")])
        env = mc.find("method_environment")
        if env is not None:
            self.prop(fmri, pg, "environment", "astring",
                      ["%s=%s" % (v.get("name"), v.get("value")) for v in env.findall("envvar")])

    def manifest(self, path):
        root = ET.parse(path).getroot()
        if root.get("type") != "manifest":
            return False
        for s in root.iter("service"):
            sf = "svc:/" + s.get("name")
            self.services.add(sf)
            self.entity(sf, s)
            cdi = s.find("create_default_instance")
            if cdi is not None:
                self.instances.add(sf + ":default")
                self.prop(sf + ":default", "general", "enabled", "boolean",
                          [cdi.get("enabled")])
            for i in s.findall("instance"):
                inf = sf + ":" + i.get("name")
                self.instances.add(inf)
                self.prop(inf, "general", "enabled", "boolean", [i.get("enabled")])
                self.entity(inf, i)
        return True


def profile_main(dump, paths):
    """After applying the profiles in order: every instance they name that exists has the
    enabled flag and the propvals of the last profile that set them; the entities that do not
    exist are counted per profile ("PROFILE missing N")."""
    repo = parse_dump(dump)
    want, errors, checked = {}, [], 0
    for path in paths:
        root = ET.parse(path).getroot()
        missing = 0
        for s in root.iter("service"):
            sf = "svc:/" + s.get("name")
            if sf not in repo:
                missing += 1
                continue
            ents = [(sf, s)] + [(sf + ":" + i.get("name"), i) for i in s.findall("instance")]
            for fmri, e in ents:
                if fmri not in repo:
                    missing += 1
                    continue
                if e.tag == "instance" and e.get("enabled") is not None:
                    want[(fmri, "general", "enabled")] = ("boolean", [e.get("enabled")])
                for pgel in e.findall("property_group"):
                    for pv in pgel.findall("propval"):
                        want[(fmri, pgel.get("name"), pv.get("name"))] = (
                            pv.get("type"), [pv.get("value")])
        print("%s missing %d" % (path, missing))
    for (fmri, pg, name), (t, vals) in sorted(want.items()):
        got = repo[fmri].get(pg, {}).get(name)
        t = t or (got[0] if got else "astring")
        checked += 1
        if got != (t, [canon(t, v) for v in vals]):
            errors.append("%s/:properties/%s/%s: expected %s, got %s" % (fmri, pg, name, vals, got))
    print("import-expect: %d profiles, %d values checked" % (len(paths), checked))
    for e in errors[:30]:
        print("MISMATCH " + e)
    return 1 if errors else 0


def main():
    if sys.argv[1] == "--profiles":
        return profile_main(sys.argv[2], sys.argv[3:])
    repo = parse_dump(sys.argv[1])
    ex, n_manifests = Expect(), 0
    for path in sys.argv[2:]:
        n_manifests += ex.manifest(path)
    errors = []
    got_svcs = {e for e in repo if e.count(":") == 1} - {"svc:/smf/manifest"}
    got_insts = {e for e in repo if e.count(":") == 2}
    if got_svcs != ex.services:
        errors.append("services: missing %s, unexpected %s" % (
            sorted(ex.services - got_svcs)[:5], sorted(got_svcs - ex.services)[:5]))
    if got_insts != ex.instances:
        errors.append("instances: missing %s, unexpected %s" % (
            sorted(ex.instances - got_insts)[:5], sorted(got_insts - ex.instances)[:5]))
    checked = 0
    for key, val in sorted(ex.props.items()):
        if key in ex.conflicts:
            continue
        ent, pg, name = key
        got = repo.get(ent, {}).get(pg, {}).get(name)
        checked += 1
        if got != val:
            errors.append("%s/:properties/%s/%s: expected %s, got %s" % (ent, pg, name, val, got))
    for ent, pg in sorted(ex.absent):
        checked += 1
        if pg in repo.get(ent, {}):
            errors.append("%s/:properties/%s: deleted by the manifest, but present" % (ent, pg))
    print("import-expect: %d manifests, %d services, %d instances, %d property values checked"
          % (n_manifests, len(ex.services), len(ex.instances), checked))
    for e in errors[:30]:
        print("MISMATCH " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

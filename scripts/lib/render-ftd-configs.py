#!/usr/bin/env python3
"""Renders the Ansible role ftd's config templates (roles/ftd/templates/*.yaml.j2) for every host
of an inventory, as ansible-playbook site.yml would write them, without Ansible or a connection:

    render-ftd-configs.py OUT INVENTORY

writes OUT/HOST/NAME (the template's name without .j2) for every host of the site.yml play that
applies the role. INVENTORY is a YAML inventory file or a directory of them, with its group_vars/
and host_vars/ beside it. mpirun-ext's DeploymentConfigFilesTest reads every file it writes with
the Java reader of its format.

Needs Python 3 with jinja2 and PyYAML only (Debian: python3-jinja2 python3-yaml). What Ansible
does around Jinja2 is done here as Ansible 2.14 does it, as far as the role's config templates
need: the variables' precedence (role defaults, the inventory's group and host variables, role
vars), variables templated when used, a result that looks like a list, a mapping or a bool read
as one, chainable undefined values that fail when printed, and the filters to_json, bool and
comment. A template or variable that needs more fails with a line saying what is missing. No
facts are gathered: ansible_default_ipv4 is undefined, so a node's address is its ansible_host.
"""

import ast
import json
import os
import sys

try:
    import jinja2
    import yaml
except ImportError as e:
    sys.exit(f"render-ftd-configs: needs Python's jinja2 and yaml modules ({e}); "
             "on Debian: apt-get install python3-jinja2 python3-yaml")

ANSIBLE_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ansible"))
ROLE = "ftd"
VAR_EXTENSIONS = ("", ".yml", ".yaml", ".json")


class RenderError(Exception):
    pass


class AnsibleUndefined(jinja2.StrictUndefined):
    """Ansible's undefined: attributes and items of it are undefined too (so `a.b | default(x)`
    works), and using it as a value fails."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __getitem__(self, key):
        return self


def to_bool(value):
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        value = value.lower()
    return value in ("yes", "on", "1", "true", 1)


def comment(text, style="plain"):
    if style != "plain":
        raise RenderError(f"comment: only the plain style is rendered here, not '{style}'")
    return "#\n" + "\n".join("# " + line if line else "#" for line in str(text).split("\n")) + "\n#"


def environment():
    env = jinja2.Environment(undefined=AnsibleUndefined, trim_blocks=True, keep_trailing_newline=True)
    env.filters.update({"to_json": lambda value: json.dumps(value), "bool": to_bool, "comment": comment})
    return env


class JsonNames(ast.NodeTransformer):
    """true, false and null in a literal read as Python's, as Ansible reads them."""
    NAMES = {"true": True, "false": False, "null": None}

    def visit_Name(self, node):
        return ast.Constant(value=self.NAMES[node.id]) if node.id in self.NAMES else node


def as_data(text):
    """A variable's templated text, read as a list, a mapping or a bool if it looks like one."""
    if text.startswith(("{", "[")) or text in ("True", "False"):
        try:
            return ast.literal_eval(ast.fix_missing_locations(JsonNames().visit(ast.parse(text, mode="eval"))))
        except (ValueError, SyntaxError, MemoryError):
            pass
    return text


def load_yaml(path):
    with open(path) as f:
        return yaml.safe_load(f)


def var_files(directory, name):
    """The variable files of group or host NAME in DIRECTORY (group_vars/ or host_vars/), in the order Ansible reads them."""
    found = []
    for ext in VAR_EXTENSIONS:
        path = os.path.join(directory, name + ext)
        if os.path.isfile(path):
            found.append(path)
    tree = os.path.join(directory, name)
    if os.path.isdir(tree):
        for root, dirs, files in os.walk(tree):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            found += [os.path.join(root, f) for f in sorted(files)
                      if not f.startswith(".") and os.path.splitext(f)[1] in VAR_EXTENSIONS]
    merged = {}
    for path in found:
        merged.update(load_yaml(path) or {})
    return merged


class Inventory:
    def __init__(self, path):
        self.hosts = {}  # host -> its variables from the inventory file, in the file's order
        self.groups = {"all": {"vars": {}, "hosts": [], "children": [], "depth": 0}}
        sources = [path]
        if os.path.isdir(path):
            sources = sorted(os.path.join(path, f) for f in os.listdir(path)
                             if f.endswith((".yml", ".yaml")) and os.path.isfile(os.path.join(path, f)))
        self.dir = path if os.path.isdir(path) else os.path.dirname(path)
        for source in sources:
            for name, data in (load_yaml(source) or {}).items():
                self.add_group(name, data, None)
        ungrouped = [h for h in self.hosts if not any(h in g["hosts"] for n, g in self.groups.items() if n != "all")]
        self.groups.setdefault("ungrouped", {"vars": {}, "hosts": [], "children": [], "depth": 1})["hosts"] += ungrouped
        if "ungrouped" not in self.groups["all"]["children"]:
            self.groups["all"]["children"].append("ungrouped")

    def add_group(self, name, data, parent):
        data = data or {}
        group = self.groups.setdefault(name, {"vars": {}, "hosts": [], "children": [], "depth": 0})
        if parent is not None:
            group["depth"] = max(group["depth"], self.groups[parent]["depth"] + 1)
            if name not in self.groups[parent]["children"]:
                self.groups[parent]["children"].append(name)
        elif name != "all":
            group["depth"] = 1
            self.groups["all"]["children"].append(name)
        group["vars"].update(data.get("vars") or {})
        for host, host_vars in (data.get("hosts") or {}).items():
            if "[" in host:
                raise RenderError(f"host patterns such as '{host}' are not rendered here; name each host")
            self.hosts.setdefault(host, {}).update(host_vars or {})
            if host not in group["hosts"]:
                group["hosts"].append(host)
        for child, child_data in (data.get("children") or {}).items():
            self.add_group(child, child_data, name)

    def members(self, name):
        """The hosts of group NAME and of its descendants, in Ansible's order: the group's own, then
        its children's, level by level."""
        hosts, level, seen = [], [name], set()
        while level:
            seen.update(level)
            for group in level:
                hosts += [h for h in self.groups[group]["hosts"] if h not in hosts]
            level = [c for g in level for c in self.groups[g]["children"] if c not in seen]
        return hosts

    def groups_of(self, host):
        """The groups HOST is in, all first, then by depth and name: the order their variables apply in."""
        return sorted((n for n in self.groups if host in self.members(n)), key=lambda n: (self.groups[n]["depth"], n))


class HostVariables:
    """One host's variables, each templated in the host's context when it is first used."""

    def __init__(self, renderer, host, raw):
        # Underscored: Jinja2 looks a variable up as an attribute first (hostvars[host].name).
        self._renderer, self._host, self._raw = renderer, host, raw
        self._done, self._busy = {}, []

    def __contains__(self, key):
        return key in self._raw

    def __getitem__(self, key):
        if key in self._done:
            return self._done[key]
        if key not in self._raw:
            raise KeyError(key)
        if key in self._busy:
            raise RenderError(f"{self._host}: {' -> '.join(self._busy + [key])}: a variable that refers to itself")
        self._busy.append(key)
        try:
            value = self._renderer.template(self._raw[key], self, key)
        finally:
            self._busy.pop()
        self._done[key] = value
        return value

    def get(self, key, default=None):
        return self[key] if key in self else default

    def keys(self):
        return self._raw.keys()

    def host(self):
        return self._host


class HostVarsOfAll:
    """Ansible's hostvars: every host's variables, by host."""

    def __init__(self, renderer):
        self.renderer = renderer

    def __contains__(self, host):
        return host in self.renderer.inventory.hosts

    def __getitem__(self, host):
        return self.renderer.variables(host)

    def get(self, host, default=None):
        return self[host] if host in self else default


class Renderer:
    def __init__(self, inventory_path):
        self.env = environment()
        self.inventory = Inventory(inventory_path)
        play = self.play()
        self.pattern = play["hosts"]
        if self.pattern not in self.inventory.groups:
            raise RenderError(f"site.yml: the play's hosts '{self.pattern}' must be a group of the inventory")
        roles = [r if isinstance(r, str) else r["role"] for r in play.get("roles", [])]
        self.defaults, self.role_vars = {}, {}
        for role in roles:
            self.defaults.update(self.role_file(role, "defaults"))
            self.role_vars.update(self.role_file(role, "vars"))
        self.cache = {}

    @staticmethod
    def play():
        plays = [p for p in load_yaml(os.path.join(ANSIBLE_DIR, "site.yml"))
                 if any((r if isinstance(r, str) else r.get("role")) == ROLE for r in p.get("roles", []))]
        if len(plays) != 1:
            raise RenderError(f"site.yml: expected one play with the role {ROLE}, found {len(plays)}")
        return plays[0]

    @staticmethod
    def role_file(role, kind):
        path = os.path.join(ANSIBLE_DIR, "roles", role, kind, "main.yml")
        return (load_yaml(path) or {}) if os.path.isfile(path) else {}

    def variables(self, host):
        if host not in self.cache:
            inventory = self.inventory
            raw = dict(self.defaults)
            groups = inventory.groups_of(host)
            for group in groups:
                raw.update(inventory.groups[group]["vars"])
            # Inventory-relative before playbook-relative, group_vars/all before the other groups.
            var_dirs = [inventory.dir, ANSIBLE_DIR]
            for group in groups:
                for directory in var_dirs:
                    raw.update(var_files(os.path.join(directory, "group_vars"), group))
            raw.update(inventory.hosts[host])
            for directory in var_dirs:
                raw.update(var_files(os.path.join(directory, "host_vars"), host))
            raw.update(self.role_vars)
            raw.update({
                "inventory_hostname": host,
                "inventory_hostname_short": host.split(".")[0],
                "group_names": sorted(g for g in groups if g not in ("all", "ungrouped")),
                "groups": {name: inventory.members(name) for name in inventory.groups},
                "hostvars": HostVarsOfAll(self),
                "playbook_dir": ANSIBLE_DIR,
                "ansible_managed": "Ansible managed",
            })
            self.cache[host] = HostVariables(self, host, raw)
        return self.cache[host]

    def template(self, value, variables, where):
        if isinstance(value, dict):
            return {k: self.template(v, variables, where) for k, v in value.items()}
        if isinstance(value, list):
            return [self.template(v, variables, where) for v in value]
        if not isinstance(value, str) or not any(mark in value for mark in ("{{", "{%", "{#")):
            return value
        return as_data(self.render(value, variables, where))

    def render(self, text, variables, where):
        try:
            template = self.env.from_string(text)
            return template.environment.concat(template.root_render_func(template.new_context(variables, shared=True)))
        except RenderError:
            raise
        except jinja2.TemplateError as e:
            raise RenderError(f"{variables.host()}: {where}: {e} (an Ansible filter or test this renderer lacks? "
                              f"see {os.path.basename(__file__)})") from e

    def write(self, out):
        templates = os.path.join(ANSIBLE_DIR, "roles", ROLE, "templates")
        names = sorted(f for f in os.listdir(templates) if f.endswith(".yaml.j2"))
        for host in self.inventory.members(self.pattern):
            os.makedirs(os.path.join(out, host), exist_ok=True)
            variables = self.variables(host)
            for name in names:
                with open(os.path.join(templates, name)) as f:
                    text = self.render(f.read(), variables, name)
                with open(os.path.join(out, host, name[:-len(".j2")]), "w") as f:
                    f.write(text)


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: render-ftd-configs.py OUT INVENTORY")
    try:
        Renderer(argv[2]).write(argv[1])
    except (RenderError, OSError, yaml.YAMLError) as e:
        sys.exit(f"render-ftd-configs: {e}")


if __name__ == "__main__":
    main(sys.argv)

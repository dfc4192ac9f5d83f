#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Hold `make help`, the scripts and README.md to one default per knob.

A knob's default is typed once: `VAR ?= value` in the Makefile, or
`${VAR:-value}` in the script that uses it; `make help` prints it (see
the Makefile's `knob`). This check runs `make help` with no knob set and
prints one "PASS help:VAR" or "FAIL help:VAR" line per knob, the reasons
on stderr; it exits 1 when any failed. A knob fails when:

  - a user can set it (the Makefile defines it, or README.md or a
    script's header comment names it, and a script reads it as
    `${VAR:-...}` or `${VAR:+...}`) but `make help` does not list it;
  - `make help` prints a value that is not the default the Makefile or
    a script gives it, or misses one of them (a knob whose scripts give
    it different defaults must show each), or lists a knob that nothing
    reads;
  - README.md (`VAR=N` in backquotes) or a script's header comment
    (`VAR=N`, or `VAR (..., default N)`) states a number that is not its
    default.

Defaults that are not literal (`$(BUILD)/linux`, `$(git config ...)`)
are not compared. Usage: scripts/help-check.py [ROOT]
"""

import os
import re
import subprocess
import sys

# Set by the scripts for one another, not by users.
INTERNAL = {
    'MAKE', 'STEP_RESULTS', 'SUMMARY_SAVE', 'SERIES_DIR', 'STACKMAP_TOOLS',
    'VM_KERNEL', 'VM_INITRD', 'VM_OBJ', 'VM_FRAGS', 'VM_EXTRA_CONFIG',
    'VM_TARGET', 'VM_KUNIT_GLOB', 'VM_ACCEL', 'VM_MEM', 'VM_MEM_FILE',
    'VM_PERSIST_EMIT', 'VM_KASLR',
}
# Knobs set under another name: ARCH=... on make's command line is VM_ARCH.
ALIAS = {'VM_ARCH': 'ARCH'}

NAME = r'[A-Z][A-Z0-9_]*'
HELP_RE = re.compile(r'^  (%s)=("([^"]*)"|(\S*))(\s|$)' % NAME)
MAKE_DEF_RE = re.compile(r'^(%s)\s*\?=[ \t]*(.*?)\s*$' % NAME, re.M)
SH_DEF_RE = re.compile(r'\$\{(%s):-([^}]*)\}' % NAME)
SH_SET_RE = re.compile(r'\$\{(%s):[-+]' % NAME)
SH_READ_RE = re.compile(r'\$\{?(%s)\b' % NAME)
STATED_RE = re.compile(r'\b(%s)=(\d+)\b' % NAME)
PAREN_RE = re.compile(r'\b(%s)\s+\(([^()]*)\)' % NAME)


def literal(value):
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    return None if '$' in value or '`' in value else value


def sources(root):
    """The Makefiles and scripts that read knobs, by path from root."""
    found = ['Makefile']
    for top in ('scripts', 'vm'):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            # The guest's scripts take their settings from its init.
            dirs[:] = sorted(x for x in dirs if x not in ('mutants', 'guest'))
            for f in sorted(files):
                if f.endswith('.sh') or f == 'Makefile':
                    found.append(os.path.relpath(os.path.join(d, f), root))
    return found


def header_comment(text):
    """A script's leading comment block, without the #s."""
    lines = []
    for line in text.splitlines():
        if line.startswith('#!'):
            continue
        if not line.startswith('#'):
            break
        lines.append(line.lstrip('#').strip())
    return '\n'.join(lines)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    defaults = {}   # knob -> {literal default: [where]}
    opaque = set()  # knobs with a default that is not a literal
    reads = set()   # knobs a script or Makefile reads
    stated = []     # (knob, value, where) numbers that prose states
    documented = set()
    settable = set()  # knobs read with a default or as set/unset

    def define(name, value, where):
        name = ALIAS.get(name, name)
        v = literal(value)
        if v is None:
            opaque.add(name)
        else:
            defaults.setdefault(name, {}).setdefault(v, []).append(where)

    for path in sources(root):
        with open(os.path.join(root, path)) as f:
            text = f.read()
        is_make = os.path.basename(path) == 'Makefile'
        code = '\n'.join(l for l in text.splitlines()
                         if not l.lstrip().startswith('#'))
        if is_make:
            for m in MAKE_DEF_RE.finditer(code):
                define(m.group(1), m.group(2), path)
                reads.add(ALIAS.get(m.group(1), m.group(1)))
                if path == 'Makefile':
                    documented.add(ALIAS.get(m.group(1), m.group(1)))
        for m in SH_DEF_RE.finditer(code):
            define(m.group(1), m.group(2), path)
        for m in SH_SET_RE.finditer(code):
            settable.add(ALIAS.get(m.group(1), m.group(1)))
        reads.update(ALIAS.get(n, n) for n in SH_READ_RE.findall(code))
        head = header_comment(text)
        documented.update(re.findall(r'\b%s\b' % NAME, head))
        for m in STATED_RE.finditer(head):
            stated.append((m.group(1), m.group(2), path + ' (comment)'))
        for m in PAREN_RE.finditer(head):
            d = re.search(r'\bdefault:?\s+(\d+)\b', m.group(2))
            if d:
                stated.append((m.group(1), d.group(1), path + ' (comment)'))
    reads.add('ARCH')
    # `${VAR:-}` beside a real default only keeps `set -u` quiet.
    for name, values in defaults.items():
        if '' in values and len(values) > 1:
            del values['']
    settable.update(defaults, opaque)

    with open(os.path.join(root, 'README.md')) as f:
        readme = f.read()
    for span in re.findall(r'`([^`\n]+)`', readme):
        documented.update(re.findall(r'\b%s\b' % NAME, span))
        m = re.fullmatch(r'(%s)=(\d+)' % NAME, span)
        if m:
            stated.append((m.group(1), m.group(2), 'README.md'))
    documented &= settable
    documented -= INTERNAL

    # make help as a user without any knob set sees it.
    env = {k: v for k, v in os.environ.items()
           if k not in ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL', 'MAKEOVERRIDES')
           and k not in defaults and k not in opaque and k not in reads
           and k not in INTERNAL}
    env.pop('VM_ARCH', None)
    res = subprocess.run(['make', '-s', '--no-print-directory', '-C', root,
                          'help'], env=env, capture_output=True, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        print('FAIL help:make-help')
        return 1
    shown = {}
    for line in res.stdout.splitlines():
        m = HELP_RE.match(line)
        if m:
            value = m.group(3) if m.group(3) is not None else m.group(4)
            shown.setdefault(m.group(1), set()).add(value)

    failed = False
    for name in sorted(set(shown) | documented):
        why = []
        if name not in shown:
            why.append('documented and read, but make help does not list it')
        else:
            want = set(defaults.get(name, {}))
            if not want and name not in opaque:
                if name not in reads:
                    why.append('make help lists it, but nothing reads it')
                elif shown[name] != {''}:
                    why.append('make help shows %s; no default is defined'
                               % ' '.join(sorted(shown[name])))
            for v in sorted(shown[name] - want):
                if want:
                    why.append('make help shows %s=%s; defined: %s' % (
                        name, v or '(empty)', ', '.join('%s in %s' % (d or '(empty)', ' '.join(w))
                                           for d, w in sorted(defaults[name].items()))))
            for v in sorted(want - shown[name]):
                why.append('%s gives %s=%s, which make help does not show' % (
                    ' '.join(defaults[name][v]), name, v or '(empty)'))
        for sname, value, where in stated:
            if ALIAS.get(sname, sname) != name or name not in defaults:
                continue
            if value not in defaults[name]:
                why.append('%s states %s=%s; the default is %s' % (
                    where, name, value, ' or '.join(sorted(defaults[name]))))
        if why:
            failed = True
            print('FAIL help:%s' % name)
            for w in why:
                print('  help:%s: %s' % (name, w), file=sys.stderr)
        else:
            print('PASS help:%s' % name)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

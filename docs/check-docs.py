#!/usr/bin/env python3
"""Checks the documentation split against the README it came from (commit 3b219ea).

Run from the repository root: python3 docs/check-docs.py [base-commit]. It checks that
  1. README.md has at most 250 lines;
  2. every fenced code block of the old README is, verbatim, in README.md or a docs/*.md file;
  3. every `dockyard.` setting named in backticks in the old README is in docs/configuration.md;
  4. every relative link of README.md and docs/*.md names a file that exists and, with #, an
     anchor of that file (GitHub's rule: lower case, spaces to '-', other punctuation dropped);
and lists the old README's lines found nowhere (lines rewritten on purpose show up there).
Exit status 1 when 1 to 4 fail.
"""
import glob
import os
import re
import subprocess
import sys

BASE = sys.argv[1] if len(sys.argv) > 1 else '3b219ea'
NOT_SETTINGS = {'dockyard.war'}  # the control plane's WAR file, named in the repository layout

old = subprocess.run(['git', 'show', BASE + ':README.md'], capture_output=True, text=True, check=True).stdout
files = ['README.md'] + sorted(glob.glob('docs/*.md'))
text = {f: open(f, encoding='utf-8').read() for f in files}
everything = '\n'.join(text.values())
failed = False


def report(ok, what):
    global failed
    failed |= not ok
    print(('ok   ' if ok else 'FAIL ') + what)


# 1
lines = text['README.md'].count('\n')
report(lines <= 250, f'README.md has {lines} lines (at most 250)')

# 2
blocks = re.findall(r'^```[^\n]*\n.*?^```$', old, re.M | re.S)
missing = [b for b in blocks if b not in everything]
report(not missing, f'{len(blocks) - len(missing)} of {len(blocks)} fenced code blocks of the old README found verbatim')
for b in missing:
    print('     missing block:', b.split('\n')[1][:100])

# 3
names = set()
for span in re.findall(r'`([^`\n]+)`', old):
    for name in re.findall(r'(?<![\w./-])(dockyard\.[A-Za-z0-9_.<>*|-]+)', span):
        name = name.rstrip('.')
        if '|' in name:  # a.b.confirm|block names a.b.confirm and a.b.block
            stem, _, rest = name.rpartition('.')
            names.update(stem + '.' + alt for alt in rest.split('|'))
        else:
            names.add(name)
conf = text['docs/configuration.md']
absent = sorted(n for n in names - NOT_SETTINGS if n not in conf)
report(not absent, f'{len(names - NOT_SETTINGS)} setting names of the old README in docs/configuration.md'
       f' (not settings: {", ".join(sorted(NOT_SETTINGS))})')
for n in absent:
    print('     absent:', n)


# 4
def anchors(markdown):
    found, seen = set(), {}
    in_code = False
    for line in markdown.split('\n'):
        if line.startswith('```'):
            in_code = not in_code
            continue
        m = None if in_code else re.match(r'^(#{1,6})\s+(.*?)\s*#*$', line)
        if not m:
            continue
        slug = re.sub(r'[^\w\- ]', '', m.group(2).strip().lower()).replace(' ', '-')
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f'{slug}-{n}')
    return found


bad = []
count = 0
for f in files:
    body = re.sub(r'^```.*?^```$', '', text[f], flags=re.M | re.S)  # links in code are not links
    body = re.sub(r'`[^`]+`', '', body)
    for target in re.findall(r'\]\(([^)\s]+)\)', body):
        if re.match(r'^[a-z]+:', target):
            continue
        count += 1
        path, _, anchor = target.partition('#')
        resolved = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(resolved):
            bad.append(f'{f}: {target} (no file {resolved})')
        elif anchor:
            if not resolved.endswith('.md'):
                bad.append(f'{f}: {target} (anchor into a file that is not markdown)')
            elif anchor not in anchors(open(resolved, encoding='utf-8').read()):
                bad.append(f'{f}: {target} (no anchor #{anchor} in {resolved})')
report(not bad, f'{count} relative links resolve to files and anchors')
for b in bad:
    print('     broken:', b)

# the old README's lines found nowhere (for review: the lines rewritten on purpose)
def unlinked(t):  # a link's target may change with the page its section moved to
    return re.sub(r'\]\([^)\s]*\)', '](…)', t)


flat = unlinked(everything)
gone = [l for l in old.split('\n') if l.strip() and unlinked(l.strip()) not in flat]
print(f'info {len(gone)} lines of the old README are not found verbatim, link targets aside'
      ' (lines rewritten on purpose):')
for l in gone:
    print('     ', l[:140])
sys.exit(1 if failed else 0)

# The lint of openhands-aci 0.3.2 (MIT; openhands_aci/linter/linter.py DefaultLinter.lint_file_diff,
# linter/impl/python.py flake_lint and python_compile_lint), run by the executor's EditLinter in the
# sandbox's own python3: the errors a change introduces in a .py file, as JSON [[line, column, message]].
# argv: the file before the change, the file after it (named old.<name> and new.<name>).
import json
import subprocess
import sys
from collections import defaultdict
from difflib import SequenceMatcher

FATAL = 'F821,F822,F831,E112,E113,E999,E902'


def flake_lint(filepath):
    # as run_shell_cmd does: through the shell, so a missing flake8 is an empty stdout, not an error
    process = subprocess.Popen(f'flake8 --select={FATAL} --isolated {filepath}', shell=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stdout, _ = process.communicate(timeout=120)
    results = []
    for line in (stdout or '').splitlines():
        parts = line.split(':')
        if len(parts) >= 4:
            msg = parts[3].strip()
            if len(parts) > 4:
                msg += ': ' + parts[4].strip()
            try:
                line_num = int(parts[1])
            except ValueError:
                continue
            try:
                column_num = int(parts[2])
            except ValueError:
                column_num = 1
                msg = parts[2].strip() + ' ' + msg
            results.append((line_num, column_num, msg))
    return results


def python_compile_lint(fname):
    try:
        with open(fname, 'r') as f:
            code = f.read()
        compile(code, fname, 'exec')
        return []
    except SyntaxError as err:
        err_lineno = getattr(err, 'end_lineno', err.lineno)
        err_offset = getattr(err, 'end_offset', err.offset)
        if err_offset and err_offset < 0:
            err_offset = err.offset
        # openhands-aci's LintResult refuses a None line; the start line stands in for it
        return [(err_lineno or err.lineno or 1, err_offset or 1, err.msg)]


def lint(path):
    return flake_lint(path) or python_compile_lint(path)


def lint_file_diff(original, updated):
    original_errors = lint(original)
    updated_errors = lint(updated)
    with open(original, 'r') as f:
        old_lines = f.readlines()
    with open(updated, 'r') as f:
        new_lines = f.readlines()
    old_to_new = {}
    replaced_or_inserted = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(isjunk=None, a=old_lines, b=new_lines).get_opcodes():
        if tag == 'equal':
            for idx, _ in enumerate(old_lines[i1:i2]):
                old_to_new[i1 + idx + 1] = j1 + idx + 1
        elif tag == 'replace' or tag == 'insert':
            # sic: openhands-aci walks the old lines here, so a pure insert marks no line
            for idx, _ in enumerate(old_lines[i1:i2]):
                replaced_or_inserted.append(j1 + idx + 1)
    original_by_new_line = defaultdict(list)
    for error in original_errors:
        if error[0] in old_to_new:
            original_by_new_line[old_to_new[error[0]]].append(error)
    selected = []
    for error in updated_errors:
        if error[0] in replaced_or_inserted:
            selected.append(error)
        elif error[0] in original_by_new_line:
            if not any(o[2] == error[2] and o[1] == error[1] for o in original_by_new_line[error[0]]):
                selected.append(error)
        else:
            selected.append(error)
    selected.sort(key=lambda e: (e[0], e[1]))
    return selected


print(json.dumps(lint_file_diff(sys.argv[1], sys.argv[2])))

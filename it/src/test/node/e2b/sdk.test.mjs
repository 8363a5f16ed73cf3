// E2B's own JavaScript SDK, as published (e2b@2.51.0), against Dockyard: run by it/ E2bSdkIT with
//   E2B_API_URL, E2B_SANDBOX_URL, E2B_API_KEY (a user's e2b_ key), E2B_OTHER_API_KEY (another
//   user's), E2B_SDK (the SDK's module) and E2B_RUN (a label of this run)
// and nothing else configured: what a user of E2B's SDK writes, unchanged. Each test names the SDK
// call it checks; docs/design/e2b-reference.md says what E2B answers and where that is in its code.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'

const e2b = await import(process.env.E2B_SDK)
const { Sandbox, CommandExitError, NotFoundError, FileNotFoundError, AuthenticationError,
  InvalidArgumentError, TimeoutError, SandboxError } = e2b
const RUN = process.env.E2B_RUN
const OTHER = { apiKey: process.env.E2B_OTHER_API_KEY }

let sbx
const extra = []

before(async () => {
  sbx = await Sandbox.create({
    metadata: { run: RUN, 'k y': 'v&w' },
    envs: { FROM_CREATE: 'created', OVERRIDDEN: 'by-create' },
    timeoutMs: 300_000,
  })
})

after(async () => {
  for (const s of [sbx, ...extra]) {
    await s?.kill().catch(() => {})
  }
})

test('Sandbox.create answers a running sandbox whose getInfo() has its metadata and end time', async () => {
  assert.match(sbx.sandboxId, /^[a-z0-9]+$/)
  const info = await sbx.getInfo()
  assert.equal(info.sandboxId, sbx.sandboxId)
  assert.equal(info.state, 'running')
  assert.equal(info.metadata.run, RUN)
  assert.equal(info.metadata['k y'], 'v&w')
  assert.match(info.envdVersion, /^\d+\.\d+\.\d+$/)
  const left = info.endAt.getTime() - Date.now()
  assert.ok(left > 240_000 && left <= 301_000, `ends in ${left} ms`)
  assert.equal(await sbx.isRunning(), true)
})

test('commands.run: stdout, exit code, stderr and CommandExitError', async () => {
  const ok = await sbx.commands.run('echo hi')
  assert.equal(ok.stdout, 'hi\n')
  assert.equal(ok.exitCode, 0)
  await assert.rejects(sbx.commands.run('echo e >&2; exit 3'), (err) => {
    assert.ok(err instanceof CommandExitError, String(err))
    assert.equal(err.exitCode, 3)
    assert.equal(err.stderr, 'e\n')
    assert.equal(err.error, 'exit status 3')
    return true
  })
})

test('commands.run: cwd, environment from create and per command, and a missing cwd', async () => {
  assert.equal((await sbx.commands.run('pwd', { cwd: '/tmp' })).stdout, '/tmp\n')
  const env = await sbx.commands.run('echo $FROM_CREATE $OVERRIDDEN', { envs: { OVERRIDDEN: 'by-command' } })
  assert.equal(env.stdout, 'created by-command\n')
  await assert.rejects(sbx.commands.run('pwd', { cwd: '/no/such/dir' }), InvalidArgumentError)
})

test('commands.run: output streamed as it comes (onStdout called for each line)', async () => {
  const chunks = []
  const started = Date.now()
  const times = []
  await sbx.commands.run('for i in 1 2 3; do echo $i; sleep 0.3; done', {
    onStdout: (d) => { chunks.push(d); times.push(Date.now() - started) },
  })
  assert.ok(chunks.length >= 2, JSON.stringify(chunks))
  assert.equal(chunks.join(''), '1\n2\n3\n')
  assert.ok(times[times.length - 1] - times[0] >= 400, `chunks at ${times}`)
})

test('commands.run: timeoutMs ends the command and the process with it', async () => {
  await assert.rejects(sbx.commands.run('sleep 30', { timeoutMs: 700 }), TimeoutError)
  for (let i = 0; i < 20; i++) {
    const left = (await sbx.commands.list()).filter((p) => p.args.join(' ').includes('sleep 30'))
    if (left.length === 0) return
    await new Promise((r) => setTimeout(r, 100))
  }
  assert.fail('the timed-out command is still running')
})

test('background command with stdin: sendStdin, closeStdin, wait', async () => {
  const h = await sbx.commands.run('cat', { background: true, stdin: true })
  await sbx.commands.sendStdin(h.pid, 'x\n')
  await sbx.commands.closeStdin(h.pid)
  const r = await h.wait()
  assert.equal(r.stdout, 'x\n')
})

test('background command outlives its client: list, disconnect, connect, kill', async () => {
  const h = await sbx.commands.run('sleep 60', { background: true })
  let listed = (await sbx.commands.list()).find((p) => p.pid === h.pid)
  assert.ok(listed, 'listed while running')
  assert.equal(listed.cmd, '/bin/bash')
  assert.deepEqual(listed.args.slice(-1), ['sleep 60'])
  await h.disconnect()
  await new Promise((r) => setTimeout(r, 300))
  listed = (await sbx.commands.list()).find((p) => p.pid === h.pid)
  assert.ok(listed, 'still running after the client went away')
  const again = await sbx.commands.connect(h.pid)
  assert.equal(await sbx.commands.kill(h.pid), true)
  await assert.rejects(again.wait(), (err) => {
    assert.ok(err instanceof CommandExitError, String(err))
    assert.equal(err.exitCode, -1)
    return true
  })
  assert.equal(await sbx.commands.kill(h.pid), false)
})

test('pty: a terminal that echoes, knows its TERM and is resized', async () => {
  let out = ''
  const decoder = new TextDecoder()
  const term = await sbx.pty.create({ cols: 80, rows: 24, onData: (d) => { out += decoder.decode(d) } })
  const until = async (text) => {
    for (let i = 0; i < 100 && !out.includes(text); i++) await new Promise((r) => setTimeout(r, 50))
    assert.ok(out.includes(text), `terminal showed: ${JSON.stringify(out.slice(-400))}`)
  }
  await sbx.pty.sendInput(term.pid, new TextEncoder().encode('echo "T=$TERM"\n'))
  await until('T=xterm-256color')
  await sbx.pty.resize(term.pid, { cols: 100, rows: 30 })
  await sbx.pty.sendInput(term.pid, new TextEncoder().encode('echo "S=$(stty size)"\n'))
  await until('S=30 100')
  assert.equal(await sbx.pty.kill(term.pid), true)
})

test('files: write and read text, bytes, nested and relative paths, several at once', async () => {
  const info = await sbx.files.write('/tmp/e2b/a/b.txt', 'hello files')
  assert.equal(info.path, '/tmp/e2b/a/b.txt')
  assert.equal(await sbx.files.read('/tmp/e2b/a/b.txt'), 'hello files')
  const bytes = new Uint8Array(256).map((_, i) => i)
  await sbx.files.write('/tmp/e2b/all.bin', bytes.buffer)
  assert.deepEqual(await sbx.files.read('/tmp/e2b/all.bin', { format: 'bytes' }), bytes)
  await sbx.files.write('relative.txt', 'in home')
  const home = (await sbx.commands.run('cat relative.txt')).stdout
  assert.equal(home, 'in home')
  const many = await sbx.files.write([
    { path: '/tmp/e2b/m1.txt', data: 'one' },
    { path: '/tmp/e2b/sub/m2.txt', data: 'two' },
  ])
  assert.equal(many.length, 2)
  assert.equal((await sbx.commands.run('cat /tmp/e2b/m1.txt /tmp/e2b/sub/m2.txt')).stdout, 'onetwo')
  await sbx.files.write('/tmp/e2b/empty.txt', '')
  assert.equal(await sbx.files.read('/tmp/e2b/empty.txt'), '')
  const big = 'x'.repeat(3 * 1024 * 1024)
  await sbx.files.write('/tmp/e2b/big.txt', big, { gzip: true })
  assert.equal((await sbx.files.getInfo('/tmp/e2b/big.txt')).size, big.length)
  await assert.rejects(sbx.files.read('/tmp/e2b/missing.txt'), FileNotFoundError)
})

test('files: list, exists, getInfo, makeDir, rename, remove', async () => {
  await sbx.files.write('/tmp/e2b-fs/d/f.txt', 'abc')
  const entries = await sbx.files.list('/tmp/e2b-fs', { depth: 2 })
  assert.deepEqual(entries.map((e) => e.path).sort(), ['/tmp/e2b-fs/d', '/tmp/e2b-fs/d/f.txt'])
  const f = await sbx.files.getInfo('/tmp/e2b-fs/d/f.txt')
  assert.equal(f.type, 'file')
  assert.equal(f.size, 3)
  assert.equal(f.name, 'f.txt')
  assert.match(f.permissions, /^-rw/)
  assert.equal(await sbx.files.exists('/tmp/e2b-fs/d/f.txt'), true)
  assert.equal(await sbx.files.exists('/tmp/e2b-fs/nope'), false)
  assert.equal(await sbx.files.makeDir('/tmp/e2b-fs/new/deep'), true)
  assert.equal(await sbx.files.makeDir('/tmp/e2b-fs/new/deep'), false)
  const moved = await sbx.files.rename('/tmp/e2b-fs/d/f.txt', '/tmp/e2b-fs/new/g.txt')
  assert.equal(moved.path, '/tmp/e2b-fs/new/g.txt')
  await sbx.files.remove('/tmp/e2b-fs/new')
  assert.equal(await sbx.files.exists('/tmp/e2b-fs/new'), false)
  await sbx.files.remove('/tmp/e2b-fs/never-there')
  await assert.rejects(sbx.files.getInfo('/tmp/e2b-fs/nope'), FileNotFoundError)
})

test('files: watchDir reports a new file by its name in the directory', async () => {
  await sbx.files.makeDir('/tmp/e2b-watch')
  const events = []
  const handle = await sbx.files.watchDir('/tmp/e2b-watch', (e) => events.push(e))
  await sbx.files.write('/tmp/e2b-watch/new.txt', 'n')
  for (let i = 0; i < 50 && !events.some((e) => e.name === 'new.txt'); i++) await new Promise((r) => setTimeout(r, 100))
  await handle.stop()
  assert.ok(events.some((e) => e.name === 'new.txt'), JSON.stringify(events))
})

test('uploadUrl and downloadUrl: signed URLs work with plain fetch, a tampered one does not', async () => {
  const up = await sbx.uploadUrl('/tmp/e2b/signed.txt')
  const form = new FormData()
  form.append('file', new Blob(['signed upload']), '/tmp/e2b/signed.txt')
  const put = await fetch(up, { method: 'POST', body: form })
  assert.equal(put.status, 200, await put.text())
  const down = await sbx.downloadUrl('/tmp/e2b/signed.txt')
  const got = await fetch(down)
  assert.equal(got.status, 200)
  assert.equal(await got.text(), 'signed upload')
  const tampered = down.replace(/signature=v1_[^&]+/, 'signature=v1_AAAA')
  assert.equal((await fetch(tampered)).status, 401)
  const elsewhere = down.replace(encodeURIComponent('/tmp/e2b/signed.txt'), encodeURIComponent('/etc/passwd'))
  assert.equal((await fetch(elsewhere)).status, 401)
})

test('another user: cannot connect to, read, kill or list this sandbox, nor use its token', async () => {
  await assert.rejects(Sandbox.connect(sbx.sandboxId, OTHER), NotFoundError)
  await assert.rejects(Sandbox.getInfo(sbx.sandboxId, OTHER), NotFoundError)
  assert.equal(await Sandbox.kill(sbx.sandboxId, OTHER), false)
  const theirs = await Sandbox.list({ ...OTHER, query: { metadata: { run: RUN } } }).nextItems()
  assert.equal(theirs.length, 0)
  await assert.rejects(Sandbox.list({ apiKey: 'e2b_0000' }).nextItems(), AuthenticationError)
  // E2B's routing with a forged token: envd refuses it
  const res = await fetch(`${process.env.E2B_SANDBOX_URL}/process.Process/List`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'E2b-Sandbox-Id': sbx.sandboxId, 'E2b-Sandbox-Port': '49983',
      'X-Access-Token': 'forged', 'Connect-Protocol-Version': '1' },
    body: '{}',
  })
  assert.equal(res.status, 401)
  // running as root is refused: the sandbox's executor is no root and cannot become one
  await assert.rejects(sbx.commands.run('id -u', { user: 'root' }), AuthenticationError)
})

test('pause, then connect resumes it with its files; kill, then it is gone', async () => {
  const other = await Sandbox.create({ metadata: { run: RUN, role: 'paused' }, timeoutMs: 120_000 })
  extra.push(other)
  await other.files.write('/tmp/kept.txt', 'kept')
  assert.equal(await other.pause(), true)
  assert.equal(await other.pause(), false)
  assert.equal((await other.getInfo()).state, 'paused')
  assert.equal(await other.isRunning(), false)
  const paused = await Sandbox.list({ query: { metadata: { run: RUN }, state: ['paused'] } }).nextItems()
  assert.deepEqual(paused.map((s) => s.sandboxId), [other.sandboxId])
  const back = await Sandbox.connect(other.sandboxId)
  assert.equal((await back.getInfo()).state, 'running')
  assert.equal(await back.files.read('/tmp/kept.txt'), 'kept')
  assert.equal(await back.kill(), true)
  assert.equal(await back.kill(), false)
  assert.equal(await back.isRunning(), false)
  await assert.rejects(Sandbox.getInfo(other.sandboxId), NotFoundError)
  await assert.rejects(back.commands.run('echo gone'), (err) => err instanceof SandboxError)
})

test('Sandbox.list filters on metadata (encoded as the SDK encodes it) and pages with nextToken', async () => {
  const second = await Sandbox.create({ metadata: { run: RUN, role: 'listed' }, timeoutMs: 120_000 })
  extra.push(second)
  const mine = await Sandbox.list({ query: { metadata: { run: RUN, 'k y': 'v&w' } } }).nextItems()
  assert.deepEqual(mine.map((s) => s.sandboxId), [sbx.sandboxId])
  const pages = Sandbox.list({ query: { metadata: { run: RUN }, state: ['running'] }, limit: 1 })
  const seen = []
  for (let i = 0; i < 5 && pages.hasNext; i++) {
    const page = await pages.nextItems()
    assert.ok(page.length <= 1)
    seen.push(...page.map((s) => s.sandboxId))
  }
  assert.equal(pages.hasNext, false)
  assert.deepEqual(seen.sort(), [sbx.sandboxId, second.sandboxId].sort())
})

test('setTimeout: a sandbox whose time is up is killed', async () => {
  const brief = await Sandbox.create({ metadata: { run: RUN, role: 'brief' }, timeoutMs: 120_000 })
  extra.push(brief)
  await brief.setTimeout(2_000)
  for (let i = 0; i < 60; i++) {
    if (!(await brief.isRunning())) break
    await new Promise((r) => setTimeout(r, 500))
  }
  await assert.rejects(Sandbox.getInfo(brief.sandboxId), NotFoundError)
})

test('getMetrics answers numbers', async () => {
  const metrics = await sbx.getMetrics()
  assert.ok(Array.isArray(metrics))
  for (const m of metrics) {
    assert.equal(typeof m.cpuUsedPct, 'number')
    assert.equal(typeof m.memUsed, 'number')
  }
})

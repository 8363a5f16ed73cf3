// A template that names a Dockyard warm pool (E2B_TEMPLATE), whose members run the executor WAR on
// Open Liberty: the sandbox comes from the pool, and envd answers from that server as from the
// embedded one. Run by it/ E2bSdkIT with the environment of sdk.test.mjs.
import { test } from 'node:test'
import assert from 'node:assert/strict'

const { Sandbox, CommandExitError } = await import(process.env.E2B_SDK)

test('a sandbox of a pool template: commands stream, files go both ways, the pool is named', async () => {
  const sbx = await Sandbox.create(process.env.E2B_TEMPLATE, { metadata: { run: process.env.E2B_RUN } })
  try {
    const info = await sbx.getInfo()
    assert.equal(info.templateId, process.env.E2B_TEMPLATE)
    const chunks = []
    await sbx.commands.run('echo one; sleep 0.3; echo two', { onStdout: (d) => chunks.push(d) })
    assert.equal(chunks.join(''), 'one\ntwo\n')
    assert.ok(chunks.length >= 2, JSON.stringify(chunks))
    await assert.rejects(sbx.commands.run('exit 7'), (err) => err instanceof CommandExitError && err.exitCode === 7)
    await sbx.files.write('/tmp/liberty/x.txt', 'through liberty')
    assert.equal(await sbx.files.read('/tmp/liberty/x.txt'), 'through liberty')
    await sbx.files.write('/tmp/liberty/z.txt', 'zipped '.repeat(1000), { gzip: true })
    assert.equal(await sbx.files.read('/tmp/liberty/z.txt'), 'zipped '.repeat(1000))
    const h = await sbx.commands.run('cat', { background: true, stdin: true })
    await sbx.commands.sendStdin(h.pid, 'in\n')
    await sbx.commands.closeStdin(h.pid)
    assert.equal((await h.wait()).stdout, 'in\n')
  } finally {
    assert.equal(await sbx.kill(), true)
  }
})

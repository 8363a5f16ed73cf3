// E2B's JavaScript SDK of the generation before /v2 (e2b@2.50.0, as the Python SDK still does it):
// creates and connects through POST /sandboxes and /sandboxes/{id}/connect. Run by it/ E2bSdkIT
// with the same environment as sdk.test.mjs.
import { test } from 'node:test'
import assert from 'node:assert/strict'

const { Sandbox } = await import(process.env.E2B_SDK)

test('an SDK of the /sandboxes routes creates, runs, connects and kills', async () => {
  const sbx = await Sandbox.create({ metadata: { run: process.env.E2B_RUN, sdk: 'v1' }, timeoutMs: 120_000 })
  try {
    assert.equal((await sbx.commands.run('echo v1')).stdout, 'v1\n')
    const again = await Sandbox.connect(sbx.sandboxId)
    assert.equal((await again.commands.run('echo again')).stdout, 'again\n')
  } finally {
    assert.equal(await sbx.kill(), true)
  }
})

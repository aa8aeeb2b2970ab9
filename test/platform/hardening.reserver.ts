// Run as a process of its own (node --import tsx): reserves an Idempotency-Key as a request of a server would,
// under this process's lease, prints "reserved" and waits to be killed, like a server killed mid-request.
import { loadConfig } from '../../src/config.ts';
import { requestHash } from '../../src/http/idempotency.ts';
import { reserveIdempotencyKey } from '../../src/http/idempotency.repository.ts';
import { takeIdempotencyLease } from '../../src/http/idempotencyLease.ts';
import { createSecretBox, loadEncryptionKey } from '../../src/security/secretBox.ts';
import { openStorage } from '../../src/storage/database.ts';

const [accountId, key, method, url, body] = process.argv.slice(2);
const config = loadConfig();
const storage = openStorage(config.database);
const lease = await takeIdempotencyLease(config.database, storage.db);
const reserved = await reserveIdempotencyKey(storage.db, {
  accountId: Number(accountId),
  key: key!,
  requestHash: requestHash(
    createSecretBox(loadEncryptionKey(config.encryptionKey, config.dataDir)),
    method!,
    url!,
    JSON.parse(body!),
  ),
  now: new Date().toISOString(),
  lease: lease.id,
});
process.stdout.write(reserved ? 'reserved\n' : 'taken\n');
setInterval(() => {}, 60_000);

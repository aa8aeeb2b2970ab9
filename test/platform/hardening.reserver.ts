// Run as a process of its own (node --import tsx): reserves an Idempotency-Key as a request of a server would,
// under this process's lease, prints "reserved" and waits to be killed, like a server killed mid-request.
// The last argument says how the request's operation records its response: `in-transaction` (a money movement,
// marked as idempotentCreate marks it) or `after-commit` (any other POST: recorded in onSend).
import { loadConfig } from '../../src/config.ts';
import { requestHash } from '../../src/http/idempotency.ts';
import { markRecordsInTransaction, reserveIdempotencyKey } from '../../src/http/idempotency.repository.ts';
import { takeIdempotencyLease } from '../../src/http/idempotencyLease.ts';
import { createSecretBox, loadEncryptionKey } from '../../src/security/secretBox.ts';
import { openStorage } from '../../src/storage/database.ts';

const [accountId, key, method, url, body, records] = process.argv.slice(2);
const config = loadConfig();
const storage = openStorage(config.database);
const lease = await takeIdempotencyLease(config.database, storage.db);
const held = { accountId: Number(accountId), key: key!, lease: `${lease.id}#0123abcd` };
const reserved = await reserveIdempotencyKey(storage.db, {
  ...held,
  requestHash: requestHash(
    createSecretBox(loadEncryptionKey(config.encryptionKey, config.dataDir)),
    method!,
    url!,
    JSON.parse(body!),
  ),
  now: new Date().toISOString(),
});
if (reserved && records === 'in-transaction') await markRecordsInTransaction(storage.db, held);
process.stdout.write(reserved ? 'reserved\n' : 'taken\n');
setInterval(() => {}, 60_000);

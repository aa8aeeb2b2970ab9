import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Seals text at rest with AES-256-GCM (outbox messages carrying credentials; later, bank account numbers). */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
  /**
   * A keyed digest (HMAC-SHA256 under a key derived from the sealing key): stored fingerprints of requests that
   * carry card or bank account numbers cannot be reversed by trying every number, as a plain hash could be.
   */
  fingerprint(text: string): string;
}

const VERSION = 'v1';

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the encryption key must be 32 bytes');
  const fingerprintKey = Buffer.from(crypto.hkdfSync('sha256', key, Buffer.alloc(0), 'fingerprint', 32));
  return {
    fingerprint: (text) => crypto.createHmac('sha256', fingerprintKey).update(text).digest('hex'),
    seal(plain) {
      const iv = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`;
    },
    open(sealed) {
      const [version, payload] = sealed.split(':');
      if (version !== VERSION || !payload) throw new Error('unknown sealed-text format');
      const raw = Buffer.from(payload, 'base64');
      const decipher = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * The key from ENCRYPTION_KEY, or else from `encryption.key` in the data directory, created on first use.
 * Several processes sharing one PostgreSQL must share one key, so they should set ENCRYPTION_KEY.
 */
export function loadEncryptionKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured) return Buffer.from(configured, 'base64');
  const file = path.join(dataDir, 'encryption.key');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, crypto.randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return key;
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const FORMAT = 'v1';

/**
 * Encrypts stored secrets (channel secrets, LLM credentials) at rest: AES-256-GCM, key = SHA-256 of APP_ENCRYPTION_KEY.
 * Without that variable a random key is generated once into `<dataDir>/encryption.key` (0600) — fine for one embedded
 * instance, wrong for several.
 */
@Injectable()
export class SecretBox {
  private readonly logger = new Logger(SecretBox.name);
  private key?: Buffer;

  constructor(@Inject(AppConfig) private readonly config: Pick<AppConfig, 'encryptionKey' | 'dataDir'>) {}

  seal(secrets: Record<string, unknown>): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.resolveKey(), iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()]);
    return [FORMAT, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
  }

  open(sealed: string): Record<string, unknown> {
    const [format, iv, tag, body] = sealed.split(':') as Array<string | undefined>;
    if (format !== FORMAT || !iv || !tag || body === undefined)
      throw new Error('stored secrets are in an unknown format');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.resolveKey(), Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
      return JSON.parse(plain) as Record<string, unknown>;
    } catch {
      throw new Error('stored secrets cannot be decrypted: APP_ENCRYPTION_KEY is not the key they were written with');
    }
  }

  private resolveKey(): Buffer {
    this.key ??= createHash('sha256')
      .update(this.config.encryptionKey ?? this.keyFromFile())
      .digest();
    return this.key;
  }

  private keyFromFile(): string {
    const file = path.join(this.config.dataDir, 'encryption.key');
    try {
      return readFileSync(file, 'utf8').trim();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    mkdirSync(this.config.dataDir, { recursive: true });
    const generated = randomBytes(32).toString('base64');
    // 'wx' fails if another process created it in the meantime; then that key is the one to use.
    try {
      writeFileSync(file, generated + '\n', { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
      throw err;
    }
    this.logger.warn(
      `APP_ENCRYPTION_KEY is not set: generated a key for stored secrets in ${file}. ` +
        "Several instances must share one APP_ENCRYPTION_KEY, or they cannot read each other's secrets.",
    );
    return generated;
  }
}

import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SecretBox } from './secret-box.js';

describe('SecretBox', () => {
  it('round-trips secrets without the plaintext in the sealed text, and another key cannot open them', () => {
    const box = new SecretBox({ encryptionKey: 'key-one-0123456789abcdef', dataDir: '/nonexistent' });
    const sealed = box.seal({ app_secret: 'very-secret-value' });
    expect(sealed).not.toContain('very-secret-value');
    expect(box.open(sealed)).toEqual({ app_secret: 'very-secret-value' });
    const other = new SecretBox({ encryptionKey: 'key-two-0123456789abcdef', dataDir: '/nonexistent' });
    expect(() => other.open(sealed)).toThrow(/APP_ENCRYPTION_KEY is not the key/);
  });

  it('without APP_ENCRYPTION_KEY generates one key file (0600) and reuses it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'warden-key-'));
    const first = new SecretBox({ encryptionKey: undefined, dataDir: dir });
    const sealed = first.seal({ token: 't' });
    const file = path.join(dir, 'encryption.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim().length).toBeGreaterThan(40);
    const second = new SecretBox({ encryptionKey: undefined, dataDir: dir });
    expect(second.open(sealed)).toEqual({ token: 't' });
  });
});

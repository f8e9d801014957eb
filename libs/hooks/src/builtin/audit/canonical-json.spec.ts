import { createHash } from 'node:crypto';
import { argsDigest, canonicalJson } from './canonical-json.js';

describe('canonical JSON and the args digest', () => {
  it('sorts object keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}',
    );
  });

  it('gives the same digest for the same args written in another key order, and another for other args', () => {
    const one = argsDigest({ id: 7, amount: 1200, meta: { x: 1, y: 2 } });
    expect(argsDigest({ meta: { y: 2, x: 1 }, amount: 1200, id: 7 })).toBe(one);
    expect(argsDigest({ id: 7, amount: 1201, meta: { x: 1, y: 2 } })).not.toBe(one);
    expect(one).toBe(createHash('sha256').update('{"amount":1200,"id":7,"meta":{"x":1,"y":2}}').digest('hex'));
  });
});

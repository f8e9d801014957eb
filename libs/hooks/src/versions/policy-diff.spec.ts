import { policyDiff } from './policy-diff.js';

describe('policyDiff', () => {
  it('walks objects by key and lists by index, with JSON-pointer paths (RFC 6901 escapes)', () => {
    const before = { hooks: { class_hooks: ['audit_log', { name: 'x', config: { a: 1 } }] }, 'a/b~c': 1, gone: true };
    const after = { hooks: { class_hooks: ['audit_log', { name: 'x', config: { a: 2 } }, 'extra'] }, 'a/b~c': 2 };
    expect(policyDiff(before, after)).toEqual([
      { op: 'replace', path: '/a~1b~0c', before: 1, after: 2 },
      { op: 'remove', path: '/gone', before: true },
      { op: 'replace', path: '/hooks/class_hooks/1/config/a', before: 1, after: 2 },
      { op: 'add', path: '/hooks/class_hooks/2', after: 'extra' },
    ]);
  });

  it('says nothing for equal configs whatever their key order; a changed type is replaced whole', () => {
    expect(policyDiff({ a: { x: 1, y: 2 } }, { a: { y: 2, x: 1 } })).toEqual([]);
    expect(policyDiff({ a: [1] }, { a: { 0: 1 } })).toEqual([
      { op: 'replace', path: '/a', before: [1], after: { 0: 1 } },
    ]);
  });
});

import { parse } from '@marcbachmann/cel-js';
import { Ajv } from 'ajv';
import { celRegexProblem } from './cel-regex.js';
import { globMatches, globWalk } from './glob-match.js';
import { compileLinearRegExp, linearRegExpEngine } from './re2-pattern.js';

/**
 * Evil inputs for every place a pattern written by a model, a member or an admin meets untrusted text. A backtracking
 * engine would not finish these within the test's timeout (2^n steps); the glob walk's steps are counted.
 */
describe('patterns from untrusted authors run in linear time', () => {
  const evil = `${'a'.repeat(5000)}b`;

  it("RE2: `^(a+)+$` answers at once on 5000 a's and a b, and still matches what it should", () => {
    const re = compileLinearRegExp('^(a+)+$');
    expect(re.test(evil)).toBe(false);
    expect(re.test('aaaa')).toBe(true);
    expect(compileLinearRegExp('b').test('abc')).toBe(true); // unanchored, like RegExp#test
    expect(compileLinearRegExp('^AB$', 'i').test('ab')).toBe(true);
  });

  it.each([
    ['a backreference', '^(a)\\1$'],
    ['a lookahead', '^(?=a)a$'],
    ['a lookbehind', '(?<=a)b'],
  ])('RE2 refuses %s, naming the pattern', (_, pattern) => {
    expect(() => compileLinearRegExp(pattern)).toThrow(`pattern "${pattern}" cannot be used`);
  });

  it('ajv with the RE2 engine: patterns and patternProperties are checked on RE2, each pattern its own', () => {
    const ajv = new Ajv({ allErrors: true, strict: false, code: { regExp: linearRegExpEngine } });
    const validate = ajv.compile({
      type: 'object',
      properties: { a: { type: 'string', pattern: '^(a+)+$' }, b: { type: 'string', pattern: '^b+$' } },
      patternProperties: { '^x(y+)+$': { type: 'number' } },
    });
    expect(validate({ a: evil, b: 'bbb' })).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toEqual(['/a']);
    expect(validate({ a: 'aaa', b: 'bbb', xyyy: 1 })).toBe(true);
    expect(validate({ a: 'aaa', b: 'bbb', xyyy: 'one' })).toBe(false);
    expect(() => ajv.compile({ type: 'string', pattern: '^(a)\\1$' })).toThrow('pattern "^(a)\\1$" cannot be used');
  });

  it('globs: whole-name matching with * and ?, literally otherwise', () => {
    expect(globMatches('oa__delete_*', 'oa__delete_user')).toBe(true);
    expect(globMatches('oa__delete_*', 'xoa__delete_user')).toBe(false);
    expect(globMatches('crm__?et', 'crm__get')).toBe(true);
    expect(globMatches('crm__?et', 'crm__gets')).toBe(false);
    expect(globMatches('a.b', 'axb')).toBe(false);
    expect(globMatches('*', '')).toBe(true);
    expect(globMatches('a*', '')).toBe(false);
    expect(globMatches('*__*', 'oa__pay')).toBe(true);
  });

  it("globs: `*a*a*…b` against 2000 a's takes at most glob × name steps", () => {
    const glob = `${'*a'.repeat(10)}*b`;
    const name = 'a'.repeat(2000);
    const walk = globWalk(glob, name);
    expect(walk.matched).toBe(false);
    expect(walk.steps).toBeLessThanOrEqual(glob.length * name.length);
  });

  it('CEL: a condition calling matches() is named as a problem; the word in a string is not', () => {
    expect(celRegexProblem(parse('args.name.matches("^(a+)+$")').ast)).toMatch(/matches\(\) is not available/);
    expect(celRegexProblem(parse('args.x > 1 && matches(args.name, "a")').ast)).toMatch(/matches\(\)/);
    expect(celRegexProblem(parse('args.name == "matches" && args.name.startsWith("m")').ast)).toBeNull();
  });
});

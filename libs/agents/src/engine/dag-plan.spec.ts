import { parsePlan } from './dag-plan.js';

describe('parsePlan', () => {
  it('accepts a plan with independent and dependent steps (also inside a code fence)', () => {
    const plan =
      '```json\n{"steps":[{"id":"a","task":"A"},{"id":"b","task":"B","depends_on":[]},{"id":"c","task":"C","depends_on":["a","b"]}]}\n```';
    const { steps, problems } = parsePlan(plan);
    expect(problems).toEqual([]);
    expect(steps!.map((s) => [s.id, s.depends_on])).toEqual([
      ['a', []],
      ['b', []],
      ['c', ['a', 'b']],
    ]);
  });

  it.each([
    ['not json', 'sure, here is a plan', /not valid JSON/],
    ['no steps', '{"steps":[]}', /non-empty "steps"/],
    ['unknown dependency', '{"steps":[{"id":"a","task":"A","depends_on":["z"]}]}', /unknown step "z"/],
    [
      'cycle',
      '{"steps":[{"id":"a","task":"A","depends_on":["b"]},{"id":"b","task":"B","depends_on":["a"]}]}',
      /cycle: a -> b -> a/,
    ],
    ['duplicate id', '{"steps":[{"id":"a","task":"A"},{"id":"a","task":"B"}]}', /used twice/],
  ])('rejects %s', (_, content, problem) => {
    const { steps, problems } = parsePlan(content);
    expect(steps).toBeUndefined();
    expect(problems.join('; ')).toMatch(problem);
  });
});

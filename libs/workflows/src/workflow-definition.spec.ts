import { renderArgs, renderTemplate, validateWorkflowDefinition } from './workflow-definition.js';

const ok = {
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'pay', type: 'agent', agent_id: 'a1', prompt: 'Pay {{inputs.po}}' },
    { id: 'check', type: 'condition', expression: "nodes.pay.output.contains('paid')" },
    { id: 'end', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'pay' },
    { from: 'pay', to: 'check' },
    { from: 'check', to: 'end', when: 'nodes.check.output == true' },
  ],
};

describe('validateWorkflowDefinition', () => {
  it('accepts start -> agent -> condition -> end', () => {
    expect(validateWorkflowDefinition(ok)).toEqual([]);
  });

  it('names a cycle', () => {
    const def = { ...ok, edges: [...ok.edges, { from: 'check', to: 'pay' }] };
    expect(validateWorkflowDefinition(def)).toEqual([
      expect.stringMatching(/cycle (pay -> check -> pay|check -> pay -> check)/),
    ]);
  });

  it('names missing start/end, unknown edge ends, bad CEL and unknown types', () => {
    const problems = validateWorkflowDefinition({
      nodes: [
        { id: 'x', type: 'agent', agent_id: 'a', prompt: 'p' },
        { id: 'y', type: 'loop' },
        { id: 'c', type: 'condition', expression: 'a >' },
      ],
      edges: [{ from: 'x', to: 'nowhere' }],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/unknown type "loop"/),
        expect.stringMatching(/\(c\)\.expression: invalid CEL/),
        expect.stringMatching(/exactly one start/),
        expect.stringMatching(/needs an end node/),
        expect.stringMatching(/unknown node "nowhere"/),
      ]),
    );
  });

  it('requires the end to be reachable and every node reachable', () => {
    const problems = validateWorkflowDefinition({
      nodes: [
        { id: 's', type: 'start' },
        { id: 'e', type: 'end' },
      ],
      edges: [],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/no end node is reachable/),
        expect.stringMatching(/"e" is not reachable/),
      ]),
    );
  });
});

describe('templates', () => {
  it('renders inputs and node outputs', () => {
    expect(
      renderTemplate('Pay {{inputs.po}} for {{ nodes.a.output }}', {
        inputs: { po: 'PO-1' },
        nodes: { a: { output: 'x' } },
      }),
    ).toBe('Pay PO-1 for x');
  });
  it('keeps the type of whole-value templates in args', () => {
    expect(
      renderArgs(
        { id: '{{inputs.po}}', amount: '{{inputs.amount}}', note: 'for {{inputs.po}}' },
        { inputs: { po: 'PO-1', amount: 60000 } },
      ),
    ).toEqual({ id: 'PO-1', amount: 60000, note: 'for PO-1' });
  });
});

import { HookBuildError } from '../hook-build.error.js';
import { resolverWithClassHook } from '../testing/yaml-resolver.js';

const resolver = resolverWithClassHook();
const registryFor = (yaml: string, classHooks: string[] = []) =>
  resolver.resolve({ hooksConfig: { class_hooks: classHooks, yaml } });

describe('YAML hooks', () => {
  describe('validation (on save) and refusal (at run time)', () => {
    it.each([
      [
        'a YAML error, with line and column',
        'hooks:\n  - event: PreToolUse\n    event: PostToolUse\n',
        /^hooks\.yaml: line 3, column 5: Map keys must be unique$/,
      ],
      [
        'a missing command',
        'hooks:\n  - event: PreToolUse\n    run: ./nope.sh\n',
        /^hooks\.yaml: hooks\[0\] \(line 2\): command "\.\/nope\.sh" not found in HOOKS_DIR$/,
      ],
      [
        'a command that is not executable',
        'hooks:\n  - event: PreToolUse\n    run: ./not-executable.sh\n',
        /command "\.\/not-executable\.sh" is not executable/,
      ],
      [
        'a command outside HOOKS_DIR',
        'hooks:\n  - event: PreToolUse\n    run: ../../../package.json\n',
        /command "\.\.\/\.\.\/\.\.\/package\.json" is outside HOOKS_DIR/,
      ],
      [
        'a missing module',
        'hooks:\n  - event: PostToolUse\n    module: ./gone.mjs\n',
        /module "\.\/gone\.mjs" not found in HOOKS_DIR/,
      ],
      [
        'a module without a default function',
        'hooks:\n  - event: PostToolUse\n    module: ./no-default.mjs\n',
        /module "\.\/no-default\.mjs" must export a default function/,
      ],
      [
        'a bad CEL condition',
        'hooks:\n  - event: PreToolUse\n    if: "args.amount >"\n    run: ./crash.sh\n',
        /hooks\[0\] \(line 2\)\.if: invalid CEL: Unexpected token: EOF/,
      ],
      [
        'an unknown CEL variable',
        'hooks:\n  - event: PreToolUse\n    if: "request.amount > 5"\n    run: ./crash.sh\n',
        /\.if: invalid CEL: Unknown variable: request/,
      ],
      [
        'a bad regex matcher',
        'hooks:\n  - event: PreToolUse\n    matcher: "/oa__(/"\n    run: ./crash.sh\n',
        /\.matcher: invalid regular expression/,
      ],
      [
        'a bad event',
        'hooks:\n  - event: BeforeTool\n    run: ./crash.sh\n',
        /\.event: must be one of SessionStart, UserPromptSubmit, PreModelCall, PreToolUse, PostToolUse, PostToolUseFailure, Stop \(got "BeforeTool"\)/,
      ],
      [
        'neither run nor module',
        'hooks:\n  - event: PreToolUse\n',
        /needs "run" \(a command\), "module" or "url" \(an http hook\)/,
      ],
      [
        'an unknown key',
        'hooks:\n  - event: PreToolUse\n    run: ./crash.sh\n    timeout: 5\n',
        /unknown key "timeout"/,
      ],
      [
        'on_error block on a PostToolUse hook',
        'hooks:\n  - event: PostToolUse\n    run: ./crash.sh\n    on_error: block\n',
        /"block" only applies to PreToolUse/,
      ],
      ['hooks that are not a list', 'hooks: ./crash.sh\n', /^hooks\.yaml: hooks must be a list$/],
    ])('validate() reports %s', async (_, yaml, problem) => {
      const problems = await resolver.validate({ yaml });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(problem);
    });

    it('a YAML name clashing with a class hook, and duplicate YAML names, are problems', async () => {
      const problems = await resolver.validate({
        class_hooks: ['recorder'],
        yaml: 'hooks:\n  - name: recorder\n    event: PreToolUse\n    run: ./crash.sh\n  - name: x\n    event: PreToolUse\n    run: ./crash.sh\n  - name: x\n    event: PreToolUse\n    run: ./crash.sh\n',
      });
      expect(problems).toEqual([
        'hooks.yaml: hooks[2] (line 8): duplicate name "x" (also hooks[1])',
        'hooks.yaml: hook name "recorder" is already used by a class hook',
      ]);
    });

    it('refuses a run whose command went missing (HookBuildError) instead of skipping the gate', async () => {
      await expect(
        registryFor('hooks:\n  - event: PreToolUse\n    run: ./removed-since-save.sh\n'),
      ).rejects.toBeInstanceOf(HookBuildError);
    });
  });
});

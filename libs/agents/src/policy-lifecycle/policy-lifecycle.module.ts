import { Global, Module } from '@nestjs/common';
import { DecisionSink, PolicyTestGate } from '@warden/hooks';
import { CandidateCheck } from './candidate-check.js';
import { DecisionRecorder } from './decision-recorder.js';
import { DecisionStore } from './decision-store.js';
import { PolicyEvaluator } from './policy-evaluator.js';
import { ReplayController } from './replay.controller.js';
import { ReplayService } from './replay.service.js';
import { ShadowController } from './shadow.controller.js';
import { ShadowEvaluator } from './shadow-evaluator.js';
import { ShadowService } from './shadow.service.js';
import { ShadowStore } from './shadow-store.js';
import { PolicyTestGateService } from './tests/policy-test-gate.service.js';
import { PolicyTestRunner } from './tests/policy-test-runner.js';
import { PolicyTestsController } from './tests/policy-tests.controller.js';
import { PolicyTestsService } from './tests/policy-tests.service.js';
import { PolicyTestsStore } from './tests/policy-tests.store.js';

/**
 * Changing a policy safely (#34, beside the versions of the hooks library): live decisions recorded off the call's
 * path, shadow policies, replays over recorded calls and policy tests. Global: the HookResolver takes its
 * DecisionSink (the recorder) from here, and
 * saves of agents and org hooks their PolicyTestGate.
 */
@Global()
@Module({
  controllers: [ShadowController, ReplayController, PolicyTestsController],
  providers: [
    DecisionStore,
    DecisionRecorder,
    { provide: DecisionSink, useExisting: DecisionRecorder },
    PolicyEvaluator,
    CandidateCheck,
    ShadowStore,
    ShadowEvaluator,
    ShadowService,
    ReplayService,
    PolicyTestsStore,
    PolicyTestRunner,
    PolicyTestsService,
    PolicyTestGateService,
    { provide: PolicyTestGate, useExisting: PolicyTestGateService },
  ],
  exports: [DecisionSink, PolicyTestGate, DecisionRecorder, DecisionStore, PolicyEvaluator, ReplayService],
})
export class PolicyLifecycleModule {}

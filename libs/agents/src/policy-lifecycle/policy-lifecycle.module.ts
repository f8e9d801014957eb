import { Global, Module } from '@nestjs/common';
import { DecisionSink } from '@warden/hooks';
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

/**
 * Changing a policy safely (#34, beside the versions of the hooks library): live decisions recorded off the call's
 * path, shadow policies, replays over recorded calls and policy tests. Global: the HookResolver takes its
 * DecisionSink (the recorder) from here.
 */
@Global()
@Module({
  controllers: [ShadowController, ReplayController],
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
  ],
  exports: [DecisionSink, DecisionRecorder, DecisionStore, PolicyEvaluator, ReplayService],
})
export class PolicyLifecycleModule {}

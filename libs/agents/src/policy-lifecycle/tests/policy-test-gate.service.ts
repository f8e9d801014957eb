import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { PolicyTestGate, type PolicySubject } from '@warden/hooks';
import { PolicyTestsService } from './policy-tests.service.js';

/**
 * The PolicyTestGate saves call (agents, org hooks). The tests service is looked up when first needed: it runs the
 * dry-run engine, which reads agents through the AgentsService that itself calls this gate on save.
 */
@Injectable()
export class PolicyTestGateService extends PolicyTestGate {
  private tests?: PolicyTestsService;

  constructor(private readonly moduleRef: ModuleRef) {
    super();
  }

  check(subject: PolicySubject, config: Record<string, unknown>, force: boolean): Promise<string[]> {
    this.tests ??= this.moduleRef.get(PolicyTestsService, { strict: false });
    return this.tests.checkSave(subject, config, force);
  }
}

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WorkflowRecovery } from './engine/workflow-recovery.js';
import { WorkflowRunEvents } from './engine/workflow-run-events.js';
import { WorkflowCancel } from './engine/workflow-cancel.js';
import { WorkflowNodeRunner } from './engine/workflow-node-runner.js';
import { WorkflowRunLeases } from './engine/workflow-run-leases.js';
import { WorkflowRunner } from './engine/workflow-runner.js';
import { Workflow, WorkflowRun } from './workflow.entity.js';
import { WorkflowsController } from './workflows.controller.js';
import { WorkflowsService } from './workflows.service.js';

/**
 * Workflow definitions (validated DAGs) and their runs; AGENT and CONNECTOR nodes go through the agents' run engine.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Workflow, WorkflowRun])],
  controllers: [WorkflowsController],
  providers: [
    WorkflowsService,
    WorkflowRunLeases,
    WorkflowNodeRunner,
    WorkflowRunner,
    WorkflowCancel,
    WorkflowRecovery,
    WorkflowRunEvents,
  ],
  exports: [WorkflowsService, WorkflowRunner],
})
export class WorkflowsModule {}

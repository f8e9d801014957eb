import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EvalDriver } from './eval-driver.js';
import { EvalRecovery } from './eval-recovery.js';
import { EvalRun } from './eval.entity.js';
import { EvalsController } from './evals.controller.js';
import { EvalsService } from './evals.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([EvalRun])],
  controllers: [EvalsController],
  providers: [EvalsService, EvalDriver, EvalRecovery],
})
export class EvalsModule {}

import { Module } from '@nestjs/common';
import { DemoOaController } from './demo-oa.controller.js';
import { DemoSeeder } from './demo-seeder.js';

@Module({ controllers: [DemoOaController], providers: [DemoSeeder], exports: [DemoSeeder] })
export class DemoModule {}

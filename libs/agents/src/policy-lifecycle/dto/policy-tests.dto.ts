import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsInt, IsObject, IsOptional, Max, Min } from 'class-validator';

const CASES_DOC =
  'Test cases: { name, tool, args, user?, roles?, agent? (org hooks only), ' +
  'expect: { decision: allow | ask | deny, approvals?, ' +
  'rewrite? (the args as rewritten, or null for "not rewritten") } }';
const CASE_EXAMPLE = {
  name: 'big payments ask twice',
  tool: 'oa__purchase_pay',
  args: { id: 'PO-1', amount: 90000 },
  expect: { decision: 'ask', approvals: 2 },
};

/** PUT …/tests: the subject's test cases, replaced as a whole. */
export class PolicyTestsDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: CASES_DOC,
    example: [CASE_EXAMPLE],
  })
  @IsArray()
  cases: unknown[];
}

/** POST …/test: run the tests against a candidate (a config or a version; neither: the live policy). */
export class PolicyTestRunDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: "The candidate: an agent's { hooks?, confirmation?, require_confirmation_for_all? } or the org hooks",
  })
  @IsOptional()
  @IsObject()
  config?: Record<string, unknown>;

  @ApiPropertyOptional({ minimum: 1, description: 'A version of the policy as the candidate' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(999_999_999)
  version?: number;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'Cases to run instead of the stored ones (same shape as PUT …/tests); nothing is stored',
  })
  @IsOptional()
  @IsArray()
  cases?: unknown[];
}

export class PolicyTestExpectResponse {
  @ApiProperty({ enum: ['allow', 'ask', 'deny'] }) decision: string;
  @ApiPropertyOptional() approvals?: number;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true }) rewrite?: Record<
    string,
    unknown
  > | null;
}

export class PolicyTestCaseResponse {
  @ApiProperty() name: string;
  @ApiProperty() tool: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) args: Record<string, unknown>;
  @ApiPropertyOptional() user?: string;
  @ApiPropertyOptional({ type: [String] }) roles?: string[];
  @ApiPropertyOptional() agent?: string;
  @ApiProperty({ type: PolicyTestExpectResponse }) expect: PolicyTestExpectResponse;
}

export class PolicyTestsResponse {
  @ApiProperty({ type: [PolicyTestCaseResponse] }) cases: PolicyTestCaseResponse[];
  @ApiProperty({ type: String, nullable: true }) updated_by: string | null;
  @ApiProperty({ type: String, nullable: true }) updated_at: string | null;
}

export class PolicyTestActualResponse {
  @ApiProperty({ enum: ['allow', 'ask', 'deny'] }) decision: string;
  @ApiProperty() approvals: number;
  @ApiProperty({ type: Number, nullable: true }) tier: number | null;
  @ApiProperty({ type: String, nullable: true }) blocked_by: string | null;
  @ApiProperty({ type: String, nullable: true }) reason: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'The args as rewritten; null: not rewritten',
  })
  rewrite: Record<string, unknown> | null;
}

export class PolicyTestResultResponse {
  @ApiProperty() name: string;
  @ApiProperty() pass: boolean;
  @ApiProperty({ type: [String], example: ['decision: expected deny, got allow'] }) failures: string[];
  @ApiProperty({ type: PolicyTestExpectResponse }) expected: PolicyTestExpectResponse;
  @ApiProperty({ type: PolicyTestActualResponse }) actual: PolicyTestActualResponse;
  @ApiProperty({ type: [String], description: 'Command/HTTP hooks not run (their verdict is unknown)' })
  skipped: string[];
}

export class PolicyTestRunResponse {
  @ApiProperty({ example: 'config', description: '"live", "config" or "version N"' }) candidate: string;
  @ApiProperty() passed: boolean;
  @ApiProperty() total: number;
  @ApiProperty() failed: number;
  @ApiProperty({ type: [PolicyTestResultResponse] }) results: PolicyTestResultResponse[];
}

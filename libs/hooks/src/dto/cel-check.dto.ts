import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { NullableString } from '@warden/common';

export class CelCheckDto {
  @ApiProperty({
    example: 'args.amount > 50000',
    description: 'A CEL condition over `args`, as in confirmation.tiers[].when',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(2000)
  expression: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { amount: 68000 },
    description: 'Example args',
  })
  @IsOptional()
  @IsObject()
  args?: Record<string, unknown>;
}

export class CelCheckResponse {
  @ApiProperty({ description: 'The condition passes the checks a save makes (syntax, types, bool result, no regex)' })
  valid: boolean;
  @NullableString('Why it would be refused on save') problem: string | null;
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description:
      'Whether the tier would apply to the example args (true also when it cannot be evaluated: fail closed)',
  })
  holds: boolean | null;
  @NullableString('Why the condition could not be evaluated on the example args') error: string | null;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUUID, MinLength } from 'class-validator';

export class ChatDto {
  @ApiProperty() @IsUUID() agent_id: string;
  @ApiProperty() @IsString() @MinLength(1) message: string;
  @ApiPropertyOptional() @IsOptional() @IsUUID() conversation_id?: string;
  @ApiPropertyOptional({ enum: ['react', 'dag'] }) @IsOptional() @IsIn(['react', 'dag']) mode?: 'react' | 'dag';
  /**
   * Where the chat comes from: `chat` (default, an interactive client) or `api` (a program). Recorded on the run and
   * its events.
   */
  @ApiPropertyOptional({ enum: ['chat', 'api'] }) @IsOptional() @IsIn(['chat', 'api']) surface?: 'chat' | 'api';
}

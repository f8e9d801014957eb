import { IsIn, IsOptional, IsString, IsUUID, MinLength } from 'class-validator';

export class ChatDto {
  @IsUUID() agent_id: string;
  @IsString() @MinLength(1) message: string;
  @IsOptional() @IsUUID() conversation_id?: string;
  @IsOptional() @IsIn(['react', 'dag']) mode?: 'react' | 'dag';
  /** Where the chat comes from: `chat` (default, an interactive client) or `api` (a program). Recorded on the run and its events. */
  @IsOptional() @IsIn(['chat', 'api']) surface?: 'chat' | 'api';
}

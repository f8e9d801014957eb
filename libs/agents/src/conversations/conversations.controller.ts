import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '@warden/auth';
import { ConversationsService } from './conversations.service.js';
import { ListConversationsQuery } from './dto/conversation.dto.js';
import { ConversationResponse, ConversationSummaryResponse } from './dto/conversation.response.js';

/** Conversation history: the caller's past chats, and one reopened with its runs (README "Conversation history"). */
@ApiTags('chat')
@ApiBearerAuth()
@Controller('conversations')
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Get()
  @ApiOkResponse({ type: [ConversationSummaryResponse] })
  list(@CurrentPrincipal() p: Principal, @Query() q: ListConversationsQuery): Promise<ConversationSummaryResponse[]> {
    return this.conversations.list(p, { agentId: q.agent_id, scope: q.scope, limit: q.limit });
  }

  @Get(':id')
  @ApiOkResponse({ type: ConversationResponse })
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<ConversationResponse> {
    return this.conversations.get(p, id);
  }
}

import { ApiProperty } from '@nestjs/swagger';
import { NullableString } from '@warden/common';

export class IdentitiesResponse {
  @NullableString() feishu_open_id: string | null;
  @NullableString() slack_user_id: string | null;
  @NullableString() wecom_user_id: string | null;
}

export class MeResponse {
  @ApiProperty() user_id: string;
  @ApiProperty() sub: string;
  @ApiProperty({ description: 'Internal org id' }) org_id: string;
  @ApiProperty({ description: 'The org as the identity provider names it' }) org: string;
  @ApiProperty({ type: [String] }) roles: string[];
  @NullableString() email: string | null;
  @NullableString() name: string | null;
  @ApiProperty({ type: IdentitiesResponse }) identities: IdentitiesResponse;
}

export class MemberResponse {
  @ApiProperty() user_id: string;
  @ApiProperty() sub: string;
  @NullableString() email: string | null;
  @NullableString() name: string | null;
  @ApiProperty({ type: [String] }) roles: string[];
  @ApiProperty({ type: IdentitiesResponse }) identities: IdentitiesResponse;
}

export class OrgResponse {
  @ApiProperty() id: string;
  @ApiProperty() external_id: string;
  @NullableString() name: string | null;
  @ApiProperty() read_only: boolean;
  @NullableString() default_channel_id: string | null;
}

export class ReadOnlyResponse {
  @ApiProperty() id: string;
  @ApiProperty() read_only: boolean;
}

/** One link, relink or unlink of a chat identity (GET /api/audit/identities). */
export class IdentityAuditResponse {
  @ApiProperty() id: string;
  @ApiProperty() sub: string;
  @ApiProperty({ enum: ['feishu', 'slack', 'wecom'] }) platform: string;
  @NullableString() external_id: string | null;
  @NullableString() previous_external_id: string | null;
  @ApiProperty({ description: 'link, relink or unlink' }) action: string;
  @ApiProperty({ enum: ['admin', 'proof', 'self', 'sso'] }) method: string;
  @NullableString('who made the change') by_sub: string | null;
  @ApiProperty() created_at: string;
}

/** A link code sent to the account (POST /api/me/identities/link). */
export class IdentityLinkStartedResponse {
  @ApiProperty() link_id: string;
  @ApiProperty({ enum: ['feishu', 'slack', 'wecom'] }) platform: string;
  @ApiProperty() external_id: string;
  @ApiProperty() channel_id: string;
  @ApiProperty() expires_at: string;
}

/** The caller's identities after a verified link (POST /api/me/identities/verify). */
export class IdentityLinkedResponse {
  @ApiProperty() user_id: string;
  @ApiProperty() sub: string;
  @ApiProperty({ type: IdentitiesResponse }) identities: IdentitiesResponse;
}

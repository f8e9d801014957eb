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

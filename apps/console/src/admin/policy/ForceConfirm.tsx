import { Alert, Button, Group, Text } from '@mantine/core';

/** A save the policy tests refused: what failed, and the choice to save anyway (recorded with the version). */
export function ForceConfirm(props: {
  title: string;
  message: string;
  action: string;
  onForce: () => void;
  onCancel: () => void;
}) {
  return (
    <Alert color="orange" role="alert" title={props.title}>
      <Text size="sm">{props.message}</Text>
      <Group mt="xs">
        <Button size="xs" color="orange.9" onClick={props.onForce}>
          {props.action}
        </Button>
        <Button size="xs" variant="default" onClick={props.onCancel}>
          Cancel
        </Button>
      </Group>
    </Alert>
  );
}

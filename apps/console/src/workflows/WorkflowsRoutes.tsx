import { Text } from '@mantine/core';
import { Route, Routes } from 'react-router-dom';

export function WorkflowsRoutes() {
  return (
    <Routes>
      <Route path="*" element={<Text c="dimmed">Coming next.</Text>} />
    </Routes>
  );
}

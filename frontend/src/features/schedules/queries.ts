import { graphql } from "../../gql";

export const SchedulesPageQuery = graphql(`
  query SchedulesPage {
    schedules {
      name
      tenant
      application
      environment
      cron
      timezone
      requester
      state
      nextTick
      lastTick
      lastDeployment
      lastError
      canDelete
    }
  }
`);

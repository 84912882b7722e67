import { graphql } from "../../gql";

export const EnvironmentsPageQuery = graphql(`
  query EnvironmentsPage {
    inventory {
      tenant
      application
      environment
      deploymentId
      artifact {
        name
        version
      }
      sha256
      deployedAt
      deployedBy
    }
    activity(first: 200) {
      ...InFlight
    }
  }
`);

export const InFlightFragment = graphql(`
  fragment InFlight on Deployment {
    id
    tenant
    application
    environment
    state
    updatedAt
    artifact {
      version
    }
    currentStep
  }
`);

export const EnvironmentsFeedSubscription = graphql(`
  subscription EnvironmentsFeed {
    activity {
      kind
      deployment {
        ...InFlight
      }
    }
  }
`);

export const FreezeWindowFragment = graphql(`
  fragment FreezeWindowView on FreezeWindow {
    rule
    start
    end
    recurring
    cron
    timeZone
  }
`);

export const FreezeCalendarQuery = graphql(`
  query FreezeCalendar($tenant: String, $application: String!, $environment: String!, $to: Time) {
    freezeCalendar(tenant: $tenant, application: $application, environment: $environment, to: $to) {
      from
      to
      windows {
        ...FreezeWindowView
      }
    }
  }
`);

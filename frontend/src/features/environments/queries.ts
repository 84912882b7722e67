import { graphql } from "../../gql";

/** An application in an environment: its release in service (null fields when none) and its last failure. */
export const InventoryCellFragment = graphql(`
  fragment InventoryCell on InventoryEntry {
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
    previous {
      deploymentId
      artifact {
        name
        version
      }
      deployedAt
    }
    lastFailure {
      deploymentId
      step
      error
      finishedAt
      rollback
    }
  }
`);

export const EnvironmentsPageQuery = graphql(`
  query EnvironmentsPage {
    inventory {
      ...InventoryCell
    }
    activity(first: 200) {
      ...InFlight
    }
  }
`);

/** The inventory, read by one environment's page (the API lists every readable environment). */
export const EnvironmentInventoryQuery = graphql(`
  query EnvironmentInventory {
    inventory {
      ...InventoryCell
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

/** The freeze calendars of every cell of the matrix, in one request. */
export const EnvironmentsFreezesQuery = graphql(`
  query EnvironmentsFreezes($environments: [EnvironmentRef!]!) {
    freezeCalendars(environments: $environments) {
      tenant
      application
      environment
      calendar {
        from
        to
        windows {
          ...FreezeWindowView
        }
      }
    }
  }
`);
